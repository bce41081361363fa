"""Benchmark: ``bench view`` answering the runs list and one page of a 20,000-task run.

Writes a run store of N records (a paragraph of response each, two evaluators, one task in ten
failing) and a few small runs beside it, starts the viewer's server on a free port, and times
HTTP requests with urllib: the runs list, the first page of the big run (cold: the first read of
its results.jsonl; then warm), a later page, and a filtered page. Target: under 200 ms each.

    nox -s bench -- --view            # or: python benchmarks/run_view.py --tasks 20000
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench.report.viewer.server import ViewServer

FILLER = "The report lists each step it took, with the evidence it used and what it concluded. "
BAR_MS = 200.0


def _write_run(runs: Path, run_id: str, tasks: int) -> None:
    folder = runs / run_id
    folder.mkdir(parents=True)
    manifest = {"suite": "big", "started_at": run_id, "status": "finished", "tasks": tasks}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with open(folder / "results.jsonl", "w", encoding="utf-8") as out:
        for i in range(tasks):
            ok = bool(i % 10)
            record = {
                "id": f"task-{i:05}",
                "status": "passed" if ok else "failed",
                "passed": ok,
                "score": 1.0 if ok else 0.5,
                "response": f"It is item-{i}. " + FILLER * 3,
                "prompt": f"Question {i}: which item is it?",
                "evaluators": [
                    {"name": "expected", "passed": ok, "score": 1.0 if ok else 0.0, "reason": "found"},
                    {"name": "regex", "passed": True, "score": 1.0, "reason": "matched"},
                ],
            }
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


def _ms(url: str, repeats: int) -> tuple[float, float]:
    """The first request's milliseconds and the median of the rest."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
        times.append((time.perf_counter() - started) * 1000)
    return times[0], statistics.median(times[1:]) if len(times) > 1 else times[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        for n in range(20):
            _write_run(runs, f"20260101-0000{n:02}-small", 10)
        _write_run(runs, "20260102-000000-big000", args.tasks)
        size = (runs / "20260102-000000-big000" / "results.jsonl").stat().st_size
        print(f"{args.tasks} tasks, results.jsonl {size / 1e6:.1f} MB, 21 runs in the folder")
        server = ViewServer(runs, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = server.url + "api/"
        try:
            checks = [
                ("runs list", base + "runs"),
                ("first page", base + "runs/20260102-000000-big000"),
                ("page 150", base + "runs/20260102-000000-big000?page=150"),
                ("failed, page 2", base + "runs/20260102-000000-big000?status=failed&page=2"),
                ("text filter", base + "runs/20260102-000000-big000?text=item-19990"),
            ]
            worst = 0.0
            for name, url in checks:
                first, median = _ms(url, args.repeats)
                print(f"{name:<16} first {first:7.1f} ms   median of {args.repeats - 1}: {median:7.1f} ms")
                worst = max(worst, median)
        finally:
            server.shutdown()
            server.server_close()
        verdict = "under" if worst < BAR_MS else "OVER"
        print(f"slowest median {worst:.1f} ms: {verdict} the {BAR_MS:.0f} ms bar")
        print("(a run's first request reads and parses its whole results.jsonl: the 'first' column)")


if __name__ == "__main__":
    main()
