"""Benchmark: the HTML report of a 20,000-task run: seconds to write it and its size.

Runs a suite of N recorded tasks (a paragraph of response each, two evaluators, one task in ten
failing) into a run store, then times ``HtmlReporter.write`` reading that store and writing the
page. Targets: under 2 s and under 20 MB at 20,000 tasks. With Playwright and Debian's chromium
installed it also times opening the page until the first rows are drawn.

    nox -s bench -- --html            # or: python benchmarks/run_html.py --tasks 20000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import bench
from bench.report.reporters.html import HtmlReporter

FILLER = "The report lists each step it took, with the evidence it used and what it concluded. "


def _task(i: int) -> dict[str, object]:
    answer = f"item-{i}" if i % 10 else "nothing"
    return {
        "id": f"task-{i:05}",
        "prompt": f"Question {i}: which item is it?",
        "response": f"It is {answer}. " + FILLER * 3,
        "evaluate": [{"expected": f"item-{i}"}, {"expected": [{"regex": r"It is \w+"}]}],
    }


def _open_in_chromium(path: Path) -> float | None:
    """Seconds from navigation until the first page of rows is in the DOM, or None without a browser."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(path.as_uri())
        page.wait_for_selector("#rows tbody tr")
        elapsed = time.perf_counter() - started
        browser.close()
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3, help="writes of the report; the fastest is shown")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; best of {args.repeat} writes")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tasks = folder / "tasks.jsonl"
        tasks.write_text("".join(json.dumps(_task(i)) + "\n" for i in range(args.tasks)))
        suite = folder / "suite.yaml"
        suite.write_text(f"name: html-{args.tasks}\ntarget: {{type: recorded}}\ntasks: {tasks.name}\n")
        result = bench.run(suite, runs_dir=folder / "runs", cache=False)
        assert result.summary.total == args.tasks, result.summary
        out = folder / "report.html"
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            HtmlReporter().write(result.report, out)
            times.append(time.perf_counter() - started)
        size = out.stat().st_size
        print(f"{'tasks':>7} {'seconds':>8} {'MB':>7} {'bytes/task':>11}")
        print(f"{args.tasks:>7} {min(times):>8.2f} {size / 1e6:>7.2f} {size / args.tasks:>11.0f}")
        opened = _open_in_chromium(out)
        if opened is not None:
            print(f"opened in headless Chromium, first rows drawn after {opened:.2f} s")
        ok = min(times) < 2.0 and size < 20e6
        print("within the targets (< 2 s, < 20 MB)" if ok else "OVER the targets (< 2 s, < 20 MB)")
        if not ok:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
