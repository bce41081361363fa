"""Benchmark: `bench run` on N recorded tasks, locally and on Ray (`--executor ray --workers 2`).

The two runs go in turn in one invocation, each a whole `bench run -q` process (the Ray one starts
its own local cluster: that start is in its time). It prints the wall time and the driver's peak
RSS (``ru_maxrss`` of the `bench` process alone: Ray's workers and daemons are other processes;
and its largest RSS sampled every 0.1 s with psutil), and checks that both runs give the same
verdicts (``bench.testing.verdict_digest``). The bar: the driver's peak RSS at most
256 MiB, and flat from 10,000 to 100,000 tasks.

    nox -s bench -- --ray                    # or: python benchmarks/run_ray.py --tasks 10000 100000
    python benchmarks/run_ray.py --tasks 1000000 --only ray    # the million-task variant
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from run_recorded import _task

DRIVER = (
    "import resource, sys\n"
    "from bench.cli import main\n"
    "try:\n    main()\nfinally:\n"
    "    sys.stderr.write('PEAK_KB=%d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def write_suite(folder: Path, n: int) -> Path:
    """The recorded suite of benchmarks/run_recorded.py, its tasks in a JSON Lines file."""
    rows = folder / f"tasks-{n}.jsonl"
    with rows.open("w") as out:
        for i in range(n):
            out.write(json.dumps(_task(i)) + "\n")
    suite = folder / f"recorded-{n}.yaml"
    suite.write_text(f"name: recorded-{n}\ntasks: {rows.name}\n")
    return suite


def measure(suite: Path, runs: Path, extra: list[str]) -> dict[str, object]:
    """One `bench run -q` process: wall seconds, the driver's peak RSS, the verdicts' digest."""
    argv = [sys.executable, "-c", DRIVER, "run", str(suite), "-q", "--runs-dir", str(runs), *extra]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    started = time.perf_counter()
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=suite.parent, env=env
    )
    sampled = [0]
    watcher = threading.Thread(target=_sample, args=(child, sampled), daemon=True)
    watcher.start()
    stdout, stderr = child.communicate()
    elapsed = time.perf_counter() - started
    watcher.join()
    if child.returncode not in (0, 1):
        raise SystemExit(f"bench run failed ({child.returncode}):\n{stdout}\n{stderr}")
    peak_kb = int(stderr.rsplit("PEAK_KB=", 1)[1].split()[0])
    [results] = list(runs.glob("*/results.jsonl"))
    with results.open("rb") as lines:
        count = sum(1 for _ in lines)
    return {
        "seconds": elapsed,
        "peak_mib": peak_kb / 1024,
        "sampled_mib": sampled[0] / 2**20,
        "lines": count,
        "digest": _digest(results),
    }


def _digest(results: Path) -> str:
    """``verdict_digest`` in a child process: it holds every line (~530 MiB at 100,000 tasks), and
    a process forked from a large one reports that size in its own ``ru_maxrss`` (Linux keeps the
    high-water mark across exec), so this process stays small for the next run it starts."""
    code = "import sys\nfrom pathlib import Path\nfrom bench.testing import verdict_digest\n"
    code += "print(verdict_digest(Path(sys.argv[1])))"
    return subprocess.run(
        [sys.executable, "-c", code, str(results)], capture_output=True, text=True, check=True
    ).stdout.strip()


def _sample(child: subprocess.Popen[str], peak: list[int]) -> None:
    """The child's largest RSS seen by psutil every 0.1 s (ru_maxrss also counts short spikes)."""
    import psutil

    try:
        proc = psutil.Process(child.pid)
        while child.poll() is None:
            peak[0] = max(peak[0], proc.memory_info().rss)
            time.sleep(0.1)
    except psutil.Error:
        return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=["local", "ray"], help="run one of the two (no digest check)")
    args = parser.parse_args()
    ways = {"local": [], "ray": ["--executor", "ray", "--workers", str(args.workers)]}
    if args.only:
        ways = {args.only: ways[args.only]}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; ray with {args.workers} workers")
    print(
        f"{'executor':<9} {'tasks':>8} {'seconds':>8} {'tasks/s':>8} "
        f"{'maxrss MiB':>11} {'sampled MiB':>12}  digest"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in args.tasks:
            suite = write_suite(folder, n)
            digests = set()
            for way, extra in ways.items():
                m = measure(suite, folder / f"runs-{way}-{n}", extra)
                assert m["lines"] == n, m
                digests.add(m["digest"])
                seconds = float(m["seconds"])  # type: ignore[arg-type]
                print(
                    f"{way:<9} {n:>8} {seconds:>8.1f} {n / seconds:>8.0f} {m['peak_mib']:>11.1f} "
                    f"{m['sampled_mib']:>12.1f}  "
                    f"{str(m['digest'])[:12]}",
                    flush=True,
                )
            if len(digests) != 1:
                raise SystemExit(f"{n} tasks: the local and ray runs' verdicts differ")


if __name__ == "__main__":
    main()
