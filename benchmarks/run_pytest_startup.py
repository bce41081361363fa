"""Benchmark: what bench-core's auto-loaded pytest plugin adds to every pytest start.

Times ``python -m pytest --co -q`` on an empty folder with the plugin loaded (through its
``pytest11`` entry point, as in any environment that has bench) and with ``-p no:bench``,
alternating the two for several rounds, and prints both medians and their difference
(under 50 ms) and the median of the rounds' own differences.

    nox -s bench -- --pytest-startup     # or: python benchmarks/run_pytest_startup.py --rounds 21
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import entry_points
from pathlib import Path

TARGET_MS = 50.0
#: ``--co`` on a folder without tests: pytest exits 5 ("no tests collected").
NO_TESTS = 5


def _plugin_installed() -> bool:
    return any(ep.name == "bench" for ep in entry_points(group="pytest11"))


def _start(folder: Path, extra: list[str], env: dict[str, str]) -> float:
    command = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *extra, str(folder)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, NO_TESTS):
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    if not _plugin_installed():
        raise SystemExit("bench-core's pytest plugin (entry point pytest11 'bench') is not installed here")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    loaded: list[float] = []
    disabled: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _start(folder, [], env)  # warm the file-system cache and bytecode once, untimed
        for _ in range(args.rounds):
            loaded.append(_start(folder, [], env))
            disabled.append(_start(folder, ["-p", "no:bench"], env))
    with_plugin = statistics.median(loaded) * 1000
    without = statistics.median(disabled) * 1000
    added = with_plugin - without
    # Each round's pair ran back to back, so its difference is less exposed to the machine's load.
    paired = statistics.median(a - b for a, b in zip(loaded, disabled, strict=True)) * 1000
    print(f"pytest --co -q on an empty folder, median of {args.rounds} alternating rounds")
    print(f"  plugin loaded:   {with_plugin:7.1f} ms")
    print(f"  -p no:bench:     {without:7.1f} ms")
    verdict = "met" if added < TARGET_MS else "NOT met"
    print(f"  plugin adds:     {added:7.1f} ms  (target < {TARGET_MS:.0f} ms: {verdict})")
    print(f"  median of the rounds' differences: {paired:.1f} ms")


if __name__ == "__main__":
    main()
