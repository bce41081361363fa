"""Shared by the benchmarks that put bench next to promptfoo: run a whole process and measure it.

``bench_process`` runs ``bench run`` in a child that also reports the run phase (``Runner.run``:
after start-up, loading and the one-time model-client import) in wall and CPU seconds.
``promptfoo_process`` runs ``npx promptfoo@VERSION eval``; ``promptfoo_missing`` says why it cannot.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROMPTFOO = "promptfoo@0.121.20"

# The child: time Runner.run (wall and CPU of this process, every thread), then run the CLI.
_BENCH_CHILD = """\
import json, os, sys, time
from bench.execution import runner
_run = runner.Runner.run
async def _timed(self, tasks):
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        await _run(self, tasks)
    finally:
        with open(os.environ["BENCH_BENCHMARK_PHASE"], "w") as fh:
            json.dump({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}, fh)
runner.Runner.run = _timed
from bench.cli import main
sys.argv[0] = "bench"
main()
"""


@dataclass
class Measured:
    """One whole process: wall seconds, CPU seconds (user + system, children included), exit code;
    for bench also the run phase's wall and CPU seconds."""

    wall: float
    cpu: float
    returncode: int
    output: str
    run_wall: float | None = None
    run_cpu: float | None = None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> Measured:
    """``argv`` as a whole process: its wall and CPU seconds (children included), exit code, output."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    return Measured(wall, _children_cpu() - cpu, done.returncode, done.stdout + done.stderr)


def bench_process(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Measured:
    """``bench ARGS`` in a fresh process; ``run_wall``/``run_cpu`` are the run phase's."""
    phase = cwd / "phase.json"
    phase.unlink(missing_ok=True)
    environment = {**(env if env is not None else os.environ), "BENCH_BENCHMARK_PHASE": str(phase)}
    measured = timed([sys.executable, "-c", _BENCH_CHILD, *args], cwd, environment)
    if phase.exists():
        figures = json.loads(phase.read_text())
        measured.run_wall, measured.run_cpu = figures["wall"], figures["cpu"]
    return measured


def promptfoo_missing() -> str | None:
    """Why promptfoo cannot run here (no npx, or the package does not install), or None."""
    if shutil.which("npx") is None:
        return "npx is not installed"
    done = subprocess.run(
        ["npx", "-y", PROMPTFOO, "--version"],
        capture_output=True,
        text=True,
        env=promptfoo_env(Path.home()),
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        return f"`npx -y {PROMPTFOO}` failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"
    return None


def promptfoo_env(folder: Path, **extra: str) -> dict[str, str]:
    """promptfoo's environment: no telemetry or update check; its database under ``folder``."""
    return {
        **os.environ,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(folder / ".promptfoo"),
        **extra,
    }


def promptfoo_process(config: Path, concurrency: int, env: dict[str, str]) -> Measured:
    """``promptfoo eval`` of ``config`` (no cache, no table, no progress bar), writing out.json."""
    argv = [
        "npx",
        "-y",
        PROMPTFOO,
        "eval",
        "-c",
        config.name,
        "--no-cache",
        "--no-table",
        "--no-progress-bar",
        "-j",
        str(concurrency),
        "-o",
        "out.json",
    ]
    return timed(argv, config.parent, env)


def promptfoo_counts(folder: Path, measured: Measured) -> str:
    """``passed P of T`` from promptfoo's out.json, and an exit status other than 0 or 100
    (failed tests): 0.121.20 sometimes crashes in its logger at exit, after writing the results."""
    stats = json.loads((folder / "out.json").read_text())["results"]["stats"]
    total = stats["successes"] + stats["failures"] + stats.get("errors", 0)
    crashed = "" if measured.returncode in (0, 100) else f" (exited {measured.returncode} after writing them)"
    return f"passed {stats['successes']} of {total}{crashed}"
