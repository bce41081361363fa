"""Benchmark: what a whole `bench run -q` process spends outside its run phase.

Two suites: examples/quickstart (six offline tasks, one of which waits out its 0.5 s timeout)
and N recorded tasks in a JSON Lines file (``run_recorded.py``'s, 1,000 by default). Each is run
``--repeat`` times as a fresh process (after one unmeasured run that writes the bytecode caches);
the medians of its wall time and CPU (user + system) are printed, with the run phase's
(``Runner.run``, timed inside the child: ``measure.bench_process``) and what is left outside it
(interpreter, imports, plugins, loading the suite, the store, the report). ``--before SRC`` runs
another bench-core source folder the same way, alternating with this one:

    git archive main packages/bench-core/src | tar -x -C /tmp/main
    python benchmarks/run_startup.py --before /tmp/main/packages/bench-core/src
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from measure import Measured, bench_process
from run_recorded import write_suites

QUICKSTART = Path(__file__).resolve().parent.parent / "examples" / "quickstart"


def _environment(source: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    if source:
        env["PYTHONPATH"] = source
    return env


def _once(suite: Path, env: dict[str, str]) -> Measured:
    args = ["run", suite.name, "-q", "--runs-dir", str(suite.parent / "runs")]
    measured = bench_process(args, suite.parent, env)
    if measured.returncode not in (0, 1) or measured.run_wall is None:
        raise SystemExit(f"bench run failed ({measured.returncode}):\n{measured.output}")
    return measured


def _row(label: str, runs: list[Measured]) -> str:
    def median(values: list[float]) -> str:
        return f"{statistics.median(values):6.2f}"

    wall = median([m.wall for m in runs])
    cpu = median([m.cpu for m in runs])
    run_wall = median([m.run_wall or 0.0 for m in runs])
    run_cpu = median([m.run_cpu or 0.0 for m in runs])
    outside = median([m.wall - (m.run_wall or 0.0) for m in runs])
    outside_cpu = median([m.cpu - (m.run_cpu or 0.0) for m in runs])
    return f"{label:<34} {wall} {cpu}  {run_wall} {run_cpu}  {outside} {outside_cpu}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", metavar="SRC", help="another bench-core source folder to measure")
    args = parser.parse_args()
    variants = {"after": _environment(None)}
    if args.before:
        variants = {"before": _environment(args.before), **variants}
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.2f}; medians of {args.repeat} runs, seconds"
    )
    print(f"{'suite':<34} {'wall':>6} {'CPU':>6}  {'run phase':>13}  {'outside it':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copytree(QUICKSTART, folder / "quickstart")
        recorded = folder / "recorded"
        recorded.mkdir()
        suites = {
            "quickstart": folder / "quickstart" / "suite.yaml",
            f"recorded, {args.tasks:,} tasks": write_suites(recorded, args.tasks)["jsonl"],
        }
        for name, suite in suites.items():
            runs: dict[str, list[Measured]] = {label: [] for label in variants}
            for env in variants.values():
                _once(suite, env)  # writes the bytecode caches
            for _ in range(args.repeat):
                for label, env in variants.items():
                    runs[label].append(_once(suite, env))
            for label, measured in runs.items():
                print(_row(f"{name} ({label})", measured))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
