"""Benchmark: N recorded tasks with two deterministic checks, bench against promptfoo's echo provider.

bench runs ``bench run suite.yaml -q`` on a JSON Lines task file whose rows carry a recorded
response and two checks (``contains`` and ``regex``); promptfoo runs the same N cases with the
``echo`` provider (the prompt is the recorded response, so the output is the same text) and the
same two assertions, at its default concurrency of 4, with ``--no-cache``. Both are whole
processes, timed from start to exit; promptfoo runs through ``npx`` (installed once beforehand).
Reported: wall and CPU seconds of each, tasks/s, bench's run phase, and the ratio.

    nox -s bench -- --echo          # or: python benchmarks/run_echo.py --tasks 10000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from measure import (
    PROMPTFOO,
    Measured,
    bench_process,
    promptfoo_counts,
    promptfoo_env,
    promptfoo_missing,
    promptfoo_process,
)

CHECKS = [{"type": "contains", "value": "answer"}, {"type": "regex", "value": r"\d+"}]


def _response(i: int) -> str:
    if i % 10 == 0:
        return "I do not know."
    return f"The answer is {i}." if i % 2 else f"Here is item-{i}, as asked."


def write_suites(folder: Path, n: int) -> tuple[Path, Path, Path]:
    """bench's suite (with its tasks file), a one-task suite like it, and promptfoo's config."""
    rows = [
        {"id": f"t{i}", "prompt": f"Question {i}?", "response": _response(i), "evaluate": CHECKS}
        for i in range(n)
    ]
    (folder / "tasks.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    suite = folder / "suite.yaml"
    suite.write_text(f"name: recorded-{n}\ntasks: tasks.jsonl\n")
    (folder / "one.jsonl").write_text(json.dumps(rows[1]) + "\n")
    one = folder / "one.yaml"
    one.write_text("name: recorded-1\ntasks: one.jsonl\n")
    config = folder / "promptfooconfig.yaml"
    with open(config, "w") as out:
        out.write(
            f"description: recorded-{n}\nprompts:\n  - '{{{{response}}}}'\nproviders:\n  - echo\ntests:\n"
        )
        for i in range(n):
            out.write(f"  - {json.dumps({'vars': {'response': _response(i)}, 'assert': CHECKS})}\n")
    return suite, one, config


def _fastest(folder: Path, suite: Path, repeat: int, src: str | None) -> Measured:
    env = {**os.environ, "PYTHONPATH": src} if src else None
    argv = ["run", suite.name, "-q", "--runs-dir", "runs"]
    return min((bench_process(argv, folder, env) for _ in range(repeat)), key=lambda m: m.wall)


def _bench(
    folder: Path, suites: tuple[Path, Path], repeat: int, n: int, label: str, src: str | None
) -> Measured:
    """The fastest of ``repeat`` runs; ``src`` is another bench-core source folder to import.

    What a task adds is the whole process's CPU less that of a one-task run of the same shape
    (start-up, imports, the report), over the other N - 1 tasks: loading, running, recording.
    """
    one = _fastest(folder, suites[1], repeat, src)
    bench = _fastest(folder, suites[0], repeat, src)
    counted = re.search(r"(\d+) tasks: (\d+) passed", bench.output)
    if bench.returncode not in (0, 1) or counted is None or bench.run_wall is None or bench.run_cpu is None:
        raise SystemExit(f"bench run failed ({bench.returncode}):\n{bench.output}")
    print(
        f"{label} (best of {repeat}):  {bench.wall:6.2f} s wall, {bench.cpu:6.2f} s CPU, "
        f"{n / bench.wall:7,.0f} tasks/s; run phase {bench.run_wall:.2f} s "
        f"({bench.run_wall / n * 1e6:.0f} µs a task, {bench.run_cpu / n * 1e6:.0f} µs of CPU); "
        f"passed {counted[2]} of {counted[1]}"
    )
    per_task_cpu = (bench.cpu - one.cpu) / (n - 1) * 1e6
    print(
        f"  a one-task run: {one.wall:.2f} s wall, {one.cpu:.2f} s CPU; "
        f"each further task adds {per_task_cpu:.0f} µs of CPU"
    )
    return bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="bench runs; the fastest is shown")
    parser.add_argument("--skip-promptfoo", action="store_true")
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also measure the bench-core source folder SRC (packages/bench-core/src of another "
        "checkout, say `git archive main`), against the same promptfoo run",
    )
    args = parser.parse_args()
    n = args.tasks
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{n:,} recorded tasks, checks: contains + regex")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite, one, config = write_suites(folder, n)
        benches = {"bench": _bench(folder, (suite, one), args.repeat, n, "bench", None)}
        if args.before:
            benches["before"] = _bench(folder, (suite, one), args.repeat, n, "before", args.before)
        missing = "skipped (--skip-promptfoo)" if args.skip_promptfoo else promptfoo_missing()
        if missing is not None:
            print(f"promptfoo: not run: {missing}")
            return
        pf = promptfoo_process(config, 4, promptfoo_env(folder))
        if not (folder / "out.json").exists():
            raise SystemExit(f"promptfoo failed ({pf.returncode}):\n{pf.output[-3000:]}")
        counts = promptfoo_counts(folder, pf)
        print(
            f"{PROMPTFOO} (echo):  {pf.wall:6.2f} s wall, {pf.cpu:6.2f} s CPU, "
            f"{n / pf.wall:7,.0f} tasks/s; {counts}"
        )
        for label, bench in benches.items():
            print(
                f"ratio ({label}): {pf.wall / bench.wall:.1f}x promptfoo's speed (wall), "
                f"{pf.cpu / bench.cpu:.1f}x less CPU"
            )


if __name__ == "__main__":
    main()
