"""``bench compare`` on two synthetic 20,000-task ``--output`` reports, new code against old.

Writes two reports shaped like ``bench run -o`` writes them, then times ``bench compare`` on them
in-process (reading both reports, pairing, the tests, the JSON) with today's McNemar p-value and
with the big-integer sum it replaced (one ``math.comb`` per tail term), and once as a whole
``bench compare --json`` process. Two pairs of runs: independent verdicts (60% against 58%
passing, about 9,700 changed verdicts) and the worst case, nearly every verdict changed.
"""

from __future__ import annotations

import argparse
import math
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from bench.report import compare
from bench.scoring import stats
from bench.vocabulary import jsonio


def old_binomial_two_sided(k: int, n: int) -> float:
    """The exact tail as it was before: one big-integer binomial coefficient per term."""
    if n == 0:
        return 1.0
    tail = min(k, n - k)
    probability = Fraction(sum(math.comb(n, i) for i in range(tail + 1)), 2**n)
    return min(1.0, float(2 * probability))


def task(i: int, passed: bool) -> dict[str, object]:
    """One task as ``bench run -o`` writes it (the fields compare reads and the usual rest)."""
    score = 1.0 if passed else 0.0
    return {
        "id": f"task-{i:05d}", "repeat": 0, "status": "passed" if passed else "failed",
        "passed": passed, "score": score, "response": f"answer {i}", "truncated": False,
        "truncation": None, "response_bytes": None, "response_sha256": None, "error": None,
        "evaluators": [{"name": "expected", "type": "expected", "passed": passed, "score": score,
                        "reason": "found 42" if passed else "not found: 42", "error": None,
                        "weight": 1.0, "details": {}}],
        "tool_calls": [], "usage": {"input_tokens": None, "output_tokens": None, "total_tokens": None,
                                    "cost_usd": None, "latency_ms": None, "ttft_ms": None,
                                    "attempts": None, "wait_ms": None},
        "duration_ms": 1.0, "digest": f"{i:016x}", "scorecard": None, "workspace": None,
    }  # fmt: skip


def report(run_id: str, verdicts: list[bool]) -> dict[str, object]:
    passed = sum(verdicts)
    return {
        "suite": "synthetic", "run_id": run_id, "passed": passed == len(verdicts),
        "summary": {"total": len(verdicts), "passed": passed, "failed": len(verdicts) - passed, "errors": 0},
        "started_at": "2026-11-23T00:00:00+00:00", "finished_at": "2026-11-23T00:01:00+00:00",
        "duration_s": 60.0, "stopped": None, "statistics": None,
        "tasks": [task(i, v) for i, v in enumerate(verdicts)],
    }  # fmt: skip


def pair(folder: Path, name: str, a: list[bool], b: list[bool]) -> tuple[Path, Path]:
    paths = folder / f"{name}-a.json", folder / f"{name}-b.json"
    for path, verdicts, side in zip(paths, (a, b), "ab", strict=True):
        path.write_text(jsonio.dumps(report(f"{name}-{side}", verdicts)) + "\n", encoding="utf-8")
    return paths


def in_process(a: Path, b: Path, binomial: Callable[[int, int], float]) -> tuple[float, dict[str, object]]:
    """Seconds for what the command does between parsing its options and printing."""
    saved = stats.binomial_two_sided
    stats.binomial_two_sided = binomial  # type: ignore[assignment]  # mcnemar looks it up at each call
    try:
        start = time.perf_counter()
        result = compare.compare_runs(compare.load_run(str(a), a.parent), compare.load_run(str(b), b.parent))
        jsonio.dumps(result.as_dict())
        return time.perf_counter() - start, result.as_dict()
    finally:
        stats.binomial_two_sided = saved


def whole_process(a: Path, b: Path) -> float:
    bench = [sys.executable, "-c", "from bench.cli import main; main()"]
    start = time.perf_counter()
    done = subprocess.run([*bench, "compare", str(a), str(b), "--json"], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1, 3):
        raise SystemExit(done.stderr.decode())
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--skip-old", action="store_true", help="time only today's code")
    args = parser.parse_args()
    rng = random.Random(0)
    n = args.tasks
    cases = {
        "independent": ([rng.random() < 0.60 for _ in range(n)], [rng.random() < 0.58 for _ in range(n)]),
    }
    base = [rng.random() < 0.5 for _ in range(n)]
    cases["nearly all changed"] = (base, [v != (rng.random() < 0.98) for v in base])
    print(f"bench compare on two {n:,}-task reports (seconds; in-process is load + compare + JSON)")
    print("| runs | changed verdicts | p-value | in-process | old in-process | old / new", end=" ")
    print("| `bench compare --json` process |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (a, b) in cases.items():
            path_a, path_b = pair(Path(tmp), name.replace(" ", "-"), a, b)
            new_s, new = min((in_process(path_a, path_b, stats.binomial_two_sided) for _ in range(3)),
                             key=lambda r: r[0])  # fmt: skip
            rate: dict[str, object] = new["pass_rate"]  # type: ignore[assignment]
            changed = int(rate["regressed"]) + int(rate["improved"])  # type: ignore[call-overload]
            process_s = min(whole_process(path_a, path_b) for _ in range(3))
            if args.skip_old:
                old_cell, ratio = "-", "-"
            else:
                old_s, old = in_process(path_a, path_b, old_binomial_two_sided)
                old_p: float = old["pass_rate"]["p_value"]  # type: ignore[index]
                new_p: float = rate["p_value"]  # type: ignore[assignment]
                if not math.isclose(old_p, new_p, rel_tol=1e-9, abs_tol=1e-300):
                    raise SystemExit(f"p-values differ: old {old_p!r}, new {new_p!r}")
                old_cell, ratio = f"{old_s:.2f}", f"{old_s / new_s:,.0f}x"
            print(f"| {name} | {changed:,} | {rate['p_value']:.4g} | {new_s:.3f} | {old_cell} | {ratio} "
                  f"| {process_s:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
