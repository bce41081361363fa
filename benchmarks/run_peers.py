"""Benchmark: every figure of the performance table, bench next to promptfoo, in one command.

    nox -s bench -- --peers      # or: python benchmarks/run_peers.py [--out benchmarks/peers.md]

Each figure is whole processes, one after the other, in fresh temporary folders; the load
average before each block is in the table (these machines are shared). The figures:

- 10,000 recorded deterministic cases, tasks in JSON Lines, then inline in the suite's YAML, then
  1,000 cases: promptfoo's CPU (``eval`` with the ``echo`` provider, the same two assertions)
  over bench's (``run_echo.py``'s suites);
- 1,000 model calls against the loopback server (200 ms, its model list too) at ``-j 64`` and
  ``-j 256``, and 500 ``llm_judge`` calls at ``-j 64``: bench's run phase as a share of the bound
  (concurrency / latency; ``run_llm.py``'s suites);
- 10,000 BLEU + ROUGE tasks: the libraries called directly (``nlp_direct.py``) as a share of
  bench's time (``run_nlp.py``'s tasks);
- CPU per task of ``run_recorded.py``'s JSON Lines suite at 10,000 and 100,000 tasks.

Without npx (or when promptfoo does not install) the promptfoo columns say why and the rest runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loopback_server import server_command
from measure import Measured, bench_process, promptfoo_env, promptfoo_missing, promptfoo_process
from run_echo import write_suites as echo_suites
from run_llm import KEY, VERDICT, _free_port, _judge_suite, _target_suite
from run_nlp import write_tasks as nlp_tasks
from run_recorded import write_suites as recorded_suites

HERE = Path(__file__).resolve().parent
LATENCY = 0.2
Row = tuple[str, str, str, str]


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


#: bench runs per figure; the best counts. The first run in a fresh environment also writes the
#: bytecode of every module it imports, which a user's pip install has done already.
RUNS = 3


def _bench(folder: Path, suite: Path, *extra: str, env: dict[str, str] | None = None) -> Measured:
    """The best of RUNS ``bench run`` processes: least CPU, or least run-phase wall for model calls."""
    best: Measured | None = None
    for _ in range(RUNS):
        measured = bench_process(["run", suite.name, "-q", *extra], folder, env)
        if measured.returncode not in (0, 1):
            raise SystemExit(f"bench run {suite.name} failed ({measured.returncode}):\n{measured.output}")
        if best is None or _cost(measured) < _cost(best):
            best = measured
    assert best is not None
    return best


def _cost(measured: Measured) -> float:
    return measured.run_wall if measured.run_wall is not None else measured.cpu


def _inline(folder: Path, n: int) -> Path:
    """run_echo.py's tasks written inline in the suite's YAML."""
    rows = (folder / "tasks.jsonl").read_text().splitlines()
    suite = folder / "inline.yaml"
    suite.write_text(f"name: recorded-inline-{n}\ntasks:\n" + "".join(f"  - {row}\n" for row in rows))
    return suite


def deterministic(missing: str | None) -> list[Row]:
    rows: list[Row] = []
    for n, shapes in ((10_000, ("JSONL", "inline YAML")), (1_000, ("JSONL",))):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            suite, _one, config = echo_suites(folder, n)
            load = _load()
            theirs = None
            if missing is None:
                theirs = promptfoo_process(config, 4, promptfoo_env(folder))
            for shape in shapes:
                ours = _bench(folder, suite if shape == "JSONL" else _inline(folder, n), "--runs-dir", "runs")
                ratio = f"{theirs.cpu / ours.cpu:.1f}x" if theirs else f"- ({missing})"
                rows.append(
                    (
                        f"{n:,} deterministic cases, tasks in {shape}, CPU",
                        ratio,
                        f"bench {ours.cpu:.2f} s CPU ({ours.wall:.2f} s wall)"
                        + (f", promptfoo {theirs.cpu:.2f} s ({theirs.wall:.2f} s)" if theirs else ""),
                        load,
                    )
                )
    return rows


def model_calls() -> list[Row]:
    rows: list[Row] = []
    port = _free_port()
    rules = Path(tempfile.mkdtemp()) / "rules.json"
    rules.write_text(json.dumps([{"match": "<response-", "reply": VERDICT}]))
    command = [
        *server_command("loopback"),
        "--port",
        str(port),
        "--latency",
        str(LATENCY),
        "--script",
        str(rules),
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    env = {"OPENAI_API_KEY": KEY, "PATH": "/usr/bin:/bin"}
    try:
        assert server.stdout is not None
        server.stdout.readline()
        runs: list[tuple[str, int, int, Callable[[Path, int, int], Path]]] = [
            ("1,000 model calls at C=64, 200 ms each", 1000, 64, _target_suite),
            ("the same at C=256", 1000, 256, _target_suite),
            ("500 judge calls at C=64", 500, 64, _judge_suite),
        ]
        for label, n, concurrency, make in runs:
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                load = _load()
                suite = make(folder, n, port)
                ours = _bench(folder, suite, "--no-cache", "-j", str(concurrency), env={**env, "HOME": tmp})
                assert ours.run_wall is not None
                bound = concurrency / LATENCY
                rows.append(
                    (
                        f"{label}: share of the {bound:,.0f}/s bound",
                        f"{n / ours.run_wall / bound:.0%}",
                        f"run phase {ours.run_wall:.2f} s (bound {n / bound:.2f} s), "
                        f"whole process {ours.wall:.2f} s",
                        load,
                    )
                )
    finally:
        server.terminate()
        server.wait()
        rules.unlink()
        rules.parent.rmdir()
    return rows


def nlp() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite = nlp_tasks(folder, 10_000, "bleu_rouge")
        load = _load()
        ours = _bench(folder, suite, "--runs-dir", "runs")
        direct = subprocess.run(
            [sys.executable, "-c", "import time,runpy,sys;t=time.perf_counter();sys.argv=sys.argv[1:];"
             "runpy.run_path(sys.argv[0], run_name='__main__');print(time.perf_counter()-t, file=sys.stderr)",
             str(HERE / "nlp_direct.py"), str(folder / "bleu_rouge.jsonl")],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        seconds = float(direct.stderr.strip().splitlines()[-1])
    return [
        (
            "BLEU + ROUGE over 10,000 pairs, vs the libraries called directly",
            f"{seconds / ours.wall:.0%} of their speed",
            f"bench {ours.wall:.2f} s wall, the libraries' loop {seconds:.2f} s (its imports included)",
            load,
        )
    ]


def per_task() -> list[Row]:
    figures = []
    load = _load()
    for n in (10_000, 100_000):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            suite = recorded_suites(folder, n)["jsonl"]
            ours = _bench(folder, suite, "--runs-dir", "runs")
            figures.append(ours.cpu / n * 1e6)
    return [
        (
            "time per task from 10k to 100k recorded tasks",
            f"{figures[0]:.0f} µs → {figures[1]:.0f} µs",
            "CPU of the whole process over the tasks (run_recorded.py's JSONL suite)",
            load,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "peers.md", help="where the table is written")
    args = parser.parse_args()
    missing = promptfoo_missing()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; promptfoo: {missing or 'found'}",
        flush=True,
    )
    rows: list[Row] = []
    for block in (lambda: deterministic(missing), model_calls, nlp, per_task):
        for row in block():
            print(" | ".join(row), flush=True)
            rows.append(row)
    table = ["| figure | value | measured | load average |", "| --- | --- | --- | ---: |"]
    table += [f"| {' | '.join(row)} |" for row in rows]
    args.out.write_text("\n".join(table) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
