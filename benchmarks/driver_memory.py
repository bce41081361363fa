"""Benchmark: what a `bench run` driver holds per task, without running any task.

Each N runs in a fresh process: the suite of run_ray.py (N recorded tasks in a JSON Lines file) is
loaded and validated (``load_suite``), its rows are read again and cut into the Ray executor's
chunks, as a Ray driver hands them out, and a run store of N result lines is scanned as the end of
a run does (``RunStore.iter_lines`` in plan order, for aggregates and pass@k). It prints the RSS
after each step, the peak RSS sampled every 10 ms during each step, and the deep size of each
per-task structure of the plan (objects shared between structures counted once, in the first).

    python benchmarks/driver_memory.py --tasks 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

MIB = 2**20


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Peak:
    """The largest RSS seen every 10 ms while the block runs."""

    def __enter__(self) -> Peak:
        self.peak, self._stop = _rss(), threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())


def deep_size(obj: Any, seen: set[int]) -> int:
    """Bytes of ``obj`` and what it holds (lists, tuples, dicts, arrays, strings), once each."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    buffers = [getattr(obj, name) for name in ("_data", "_ends") if hasattr(obj, name)]
    if buffers:  # bench.vocabulary.compact's columns
        size += sum(sys.getsizeof(buffer) for buffer in buffers)
    elif isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_size(item, seen) for item in obj)
    return size


def held(name: str, obj: Any, seen: set[int]) -> tuple[str, float]:
    return name, deep_size(obj, seen) / MIB


def closure_lists(function: Callable[..., Any]) -> list[Any]:
    """The sequences a loader closure keeps (the per-row digests)."""
    cells = function.__closure__ or ()
    return [c.cell_contents for c in cells if isinstance(c.cell_contents, (list, tuple, Sequence))]


def one(n: int, folder: Path) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parent))
    from run_ray import write_suite

    from bench.testing import load_suite
    from bench.vocabulary.store import RunStore
    from bench_ray.executor import chunks

    suite = write_suite(folder, n)
    steps: list[tuple[str, float, float]] = []
    start = _rss()
    steps.append(("imported", start / MIB, start / MIB))
    clock = time.perf_counter()
    with Peak() as peak:
        plan = load_suite(suite)
    load_s = time.perf_counter() - clock
    steps.append(("load_suite", _rss() / MIB, peak.peak / MIB))
    tasks = plan.tasks
    seen: set[int] = set()
    sizes = [
        held("TaskList.ids", tasks.ids, seen),
        held("TaskList.digests", tasks.digests, seen),
        held("rows' digests (closure)", [closure_lists(tasks._rows)] if tasks._rows else [], seen),
        ("runs_per_row", sys.getsizeof(tasks._runs_per_row) / MIB),
        ("row needs", sys.getsizeof(tasks._needs.per_row) / MIB),
        held("pass_at_k", plan.pass_at_k, seen),
    ]
    with Peak() as peak:
        handed = sum(len(chunk) for chunk in chunks(plan.rows(), None, 512))
    assert handed == n, handed
    steps.append(("rows, in chunks", _rss() / MIB, peak.peak / MIB))
    run = folder / "run"
    run.mkdir()
    line = '{"id":"t%d","repeat":0,"status":"passed","passed":true,"score":1.0}\n'
    with open(run / "results.jsonl", "w") as out:
        out.writelines(line % i for i in range(n))
    store = RunStore(run)
    with Peak() as peak:
        read = sum(1 for _ in store.iter_lines(tasks.ids))
    assert read == n, read
    steps.append(("store scan (iter_lines)", _rss() / MIB, peak.peak / MIB))
    return {
        "steps": steps,
        "sizes": sizes,
        "load_s": load_s,
        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def report(n: int, found: dict[str, Any]) -> None:
    print(f"\n{n:,} tasks: load_suite {found['load_s']:.1f} s, ru_maxrss {found['maxrss']:.1f} MiB")
    print(f"  {'step':<26} {'RSS after MiB':>14} {'peak MiB':>9}")
    for name, after, peak in found["steps"]:
        print(f"  {name:<26} {after:>14.1f} {peak:>9.1f}")
    print(f"  {'held by the plan':<26} {'MiB':>14}")
    for name, mib in found["sizes"]:
        print(f"  {name:<26} {mib:>14.1f}")


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(one(args.one, Path(tmp))))
        return
    print(f"python {sys.version.split()[0]}")
    for n in args.tasks:  # each in a process of its own: RSS does not shrink back
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True
        ).stdout
        report(n, json.loads(out.strip().splitlines()[-1]))


if __name__ == "__main__":
    main()
