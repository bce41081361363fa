"""Benchmark: every figure of the performance table, bench next to its peer, in one command.

    nox -s bench -- --peers      # or: python benchmarks/run_peers.py [--pairs 3] [--out benchmarks/peers.md]

Each figure is whole processes in fresh temporary folders, bench and its peer in turn (A B A B,
``--pairs`` times, after one bench run that writes the bytecode a pip install would have), and
the value is the median of the pairs' ratios with their range; the load average during each
block is in the table (these machines are shared, and their speed drifts between minutes, so
only figures measured side by side are compared). The figures and their peers:

- 10,000 recorded deterministic cases, tasks in JSON Lines, then inline in the suite's YAML, then
  1,000 cases: promptfoo's CPU (``eval`` with the ``echo`` provider, the same two assertions)
  over bench's (``run_echo.py``'s suites);
- 1,000 model calls against the loopback server (200 ms, its model list too) at ``-j 64`` and
  ``-j 256``, and 500 ``llm_judge`` calls at ``-j 64``: bench's run phase as a share of the bound
  (concurrency / latency; ``run_llm.py``'s suites), next to a bare asyncio client's share on the
  same calls (``run_llm.py --ceiling``: what the server and the machine allow any client);
- 10,000 BLEU + ROUGE tasks: the libraries called directly (``nlp_direct.py``) as a share of
  bench's time (``run_nlp.py``'s tasks), by wall and by CPU;
- CPU per task of ``run_recorded.py``'s JSON Lines suite at 10,000 and 100,000 tasks.

Without npx (or when promptfoo does not install) the promptfoo rows say why and the rest runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loopback_server import server_command
from measure import Measured, bench_process, promptfoo_env, promptfoo_missing, promptfoo_process, timed
from run_echo import write_suites as echo_suites
from run_llm import KEY, VERDICT, _free_port, _judge_suite, _raw_calls, _target_suite
from run_nlp import write_tasks as nlp_tasks
from run_recorded import write_suites as recorded_suites

HERE = Path(__file__).resolve().parent
LATENCY = 0.2
Row = tuple[str, str, str, str]


class Loads:
    """The load averages seen during a block, shown as their range."""

    def __init__(self) -> None:
        self.seen: list[float] = []

    def note(self) -> None:
        self.seen.append(os.getloadavg()[0])

    def __str__(self) -> str:
        low, high = min(self.seen), max(self.seen)
        return f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f}"


def _spread(values: Sequence[float], form: str, unit: str = "") -> str:
    """The median of ``values`` and, for more than one, their range, each written with ``form``
    and followed by ``unit``."""
    median = format(statistics.median(values), form) + unit
    if len(values) == 1:
        return median
    return f"{median} ({format(min(values), form)}-{format(max(values), form)}{unit})"


def _bench(folder: Path, suite: Path, *extra: str, env: dict[str, str] | None = None) -> Measured:
    measured = bench_process(["run", suite.name, "-q", *extra], folder, env)
    if measured.returncode not in (0, 1):
        raise SystemExit(f"bench run {suite.name} failed ({measured.returncode}):\n{measured.output}")
    return measured


def _inline(folder: Path, n: int) -> Path:
    """run_echo.py's tasks written inline in the suite's YAML."""
    rows = (folder / "tasks.jsonl").read_text().splitlines()
    suite = folder / "inline.yaml"
    suite.write_text(f"name: recorded-inline-{n}\ntasks:\n" + "".join(f"  - {row}\n" for row in rows))
    return suite


def deterministic(missing: str | None, pairs: int) -> list[Row]:
    rows: list[Row] = []
    for n, shapes in ((10_000, ("JSONL", "inline YAML")), (1_000, ("JSONL",))):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            suite, _one, config = echo_suites(folder, n)
            suites = {"JSONL": suite, "inline YAML": _inline(folder, n)}
            loads = Loads()
            for shape in shapes:  # the bytecode a pip install would have written
                _bench(folder, suites[shape], "--runs-dir", "runs")
            theirs: list[Measured] = []
            ours: dict[str, list[Measured]] = {shape: [] for shape in shapes}
            for _ in range(pairs):
                loads.note()
                if missing is None:
                    theirs.append(promptfoo_process(config, 4, promptfoo_env(folder)))
                for shape in shapes:
                    ours[shape].append(_bench(folder, suites[shape], "--runs-dir", "runs"))
            loads.note()
            for shape in shapes:
                cpu = [m.cpu for m in ours[shape]]
                measured = f"bench {_spread(cpu, '.2f', ' s')} CPU"
                if theirs:
                    ratios = [t.cpu / o.cpu for t, o in zip(theirs, ours[shape], strict=True)]
                    value = _spread(ratios, ".1f", "x")
                    measured += f", promptfoo {_spread([t.cpu for t in theirs], '.1f', ' s')}"
                else:
                    value = f"- ({missing})"
                label = f"{n:,} deterministic cases, tasks in {shape}, CPU"
                rows.append((label, value, measured, str(loads)))
    return rows


def _server(rules: Path) -> tuple[subprocess.Popen[str], int]:
    port = _free_port()
    command = [*server_command("loopback"), "--port", str(port), "--latency", str(LATENCY)]
    server = subprocess.Popen([*command, "--script", str(rules)], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    server.stdout.readline()  # "fake LLM server on ..."
    return server, port


def model_calls(pairs: int) -> list[Row]:
    rows: list[Row] = []
    rules = Path(tempfile.mkdtemp()) / "rules.json"
    rules.write_text(json.dumps([{"match": "<response-", "reply": VERDICT}]))
    server, port = _server(rules)
    env = {"OPENAI_API_KEY": KEY, "PATH": "/usr/bin:/bin"}
    try:
        runs: list[tuple[str, int, int, Callable[[Path, int, int], Path]]] = [
            ("1,000 model calls at C=64, 200 ms each", 1000, 64, _target_suite),
            ("the same at C=256", 1000, 256, _target_suite),
            ("500 judge calls at C=64", 500, 64, _judge_suite),
        ]
        for label, n, concurrency, make in runs:
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                loads = Loads()
                suite = make(folder, n, port)
                args = ("--no-cache", "-j", str(concurrency))
                _bench(folder, suite, *args, env={**env, "HOME": tmp})
                bound = concurrency / LATENCY
                bare: list[float] = []
                ours: list[float] = []
                for _ in range(pairs):
                    loads.note()
                    bare.append(n / asyncio.run(_raw_calls(port, n, concurrency)) / bound)
                    measured = _bench(folder, suite, *args, env={**env, "HOME": tmp})
                    assert measured.run_wall is not None
                    ours.append(n / measured.run_wall / bound)
                loads.note()
                rows.append(
                    (
                        f"{label}: share of the {bound:,.0f}/s bound",
                        _spread(ours, ".0%"),
                        f"bench's run phase (bound {n / bound:.2f} s); a bare asyncio client in turn: "
                        f"{_spread(bare, '.0%')}",
                        str(loads),
                    )
                )
    finally:
        server.terminate()
        server.wait()
        rules.unlink()
        rules.parent.rmdir()
    return rows


def nlp(pairs: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite = nlp_tasks(folder, 10_000, "bleu_rouge")
        direct = [sys.executable, str(HERE / "nlp_direct.py"), str(folder / "bleu_rouge.jsonl")]
        loads = Loads()
        _bench(folder, suite, "--runs-dir", "runs")
        theirs: list[Measured] = []
        ours: list[Measured] = []
        for _ in range(pairs):
            loads.note()
            theirs.append(timed(direct, folder, dict(os.environ)))
            ours.append(_bench(folder, suite, "--runs-dir", "runs"))
        loads.note()
    by_wall = [t.wall / o.wall for t, o in zip(theirs, ours, strict=True)]
    by_cpu = [t.cpu / o.cpu for t, o in zip(theirs, ours, strict=True)]
    return [
        (
            "BLEU + ROUGE over 10,000 pairs, vs the libraries called directly",
            f"{_spread(by_wall, '.0%')} of their speed",
            f"whole processes: bench {_spread([o.wall for o in ours], '.2f', ' s')} wall, "
            f"the libraries' loop {_spread([t.wall for t in theirs], '.2f', ' s')}; "
            f"by CPU {_spread(by_cpu, '.0%')}",
            str(loads),
        )
    ]


def per_task(pairs: int) -> list[Row]:
    loads = Loads()
    micros: dict[int, list[float]] = {10_000: [], 100_000: []}
    with tempfile.TemporaryDirectory() as tmp:
        suites = {}
        for n in micros:
            (Path(tmp) / str(n)).mkdir()
            suites[n] = recorded_suites(Path(tmp) / str(n), n)["jsonl"]
            _bench(suites[n].parent, suites[n], "--runs-dir", "runs")
        for _ in range(pairs):
            loads.note()
            for n, suite in suites.items():
                micros[n].append(_bench(suite.parent, suite, "--runs-dir", "runs").cpu / n * 1e6)
        loads.note()
    growth = [large / small for small, large in zip(micros[10_000], micros[100_000], strict=True)]
    return [
        (
            "time per task from 10k to 100k recorded tasks",
            f"{statistics.median(micros[10_000]):.0f} µs → {statistics.median(micros[100_000]):.0f} µs",
            f"CPU of the whole process over the tasks (run_recorded.py's JSONL suite); 100k / 10k "
            f"{_spread(growth, '.2f')}",
            str(loads),
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "peers.md", help="where the table is written")
    parser.add_argument("--pairs", type=int, default=3, help="bench and its peer in turn, this many times")
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    missing = promptfoo_missing()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; promptfoo: {missing or 'found'}; "
        f"{args.pairs} pairs a figure",
        flush=True,
    )
    rows: list[Row] = []
    pairs = args.pairs
    blocks = (
        lambda: deterministic(missing, pairs),
        lambda: model_calls(pairs),
        lambda: nlp(pairs),
        lambda: per_task(pairs),
    )
    for block in blocks:
        for row in block():
            print(" | ".join(row), flush=True)
            rows.append(row)
    table = ["| figure | value: median (range) | measured | load average |", "| --- | --- | --- | ---: |"]
    table += [f"| {' | '.join(row)} |" for row in rows]
    args.out.write_text("\n".join(table) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
