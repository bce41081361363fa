"""Benchmark: the matrix of a 100,000-task run in headless Chromium, in the HTML report and in ``bench view``.

Writes N tasks × K prompt × target columns of records (a sentence of output each, one evaluator,
metadata; a cell fails when (row + column) % 7 == 0), then in headless Chromium (Debian's
``chromium``, driven by Playwright) times: opening the report until the matrix's first rows are
drawn; turning a page (click until the new rows are laid out); scrolling the page to its foot and
the matrix sideways; each filter (status, evaluator, metadata, text, disagreement); then the same
run in ``bench view`` (its server on a free port): opening the run until the matrix is drawn
(the page, the run's first page of tasks and the matrix's cells fetched), a page turn and a filter.
Each in-page figure is the first of 5 tries and their median; opening, the first of 2 and the second.

    nox -s bench -- --matrix          # or: python benchmarks/run_matrix.py --tasks 100000 --columns 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.report.reporters.html import HtmlReporter
from bench.report.viewer.server import ViewServer
from bench.vocabulary.results import RunReport, Summary

PROMPTS, TARGETS = ("plain", "terse"), ("small", "large")

# One action in the page, timed until the layout it causes is done (reading a box forces it).
ACT = """async (action) => {
  const $ = (id) => document.getElementById(id);
  const scroller = () => document.querySelector(".matrix-scroll");
  const set = (id, value, kind) => {
    if (kind === "check") $(id).checked = value; else $(id).value = value;
    $(id).dispatchEvent(new Event(kind === "input" ? "input" : "change"));
  };
  const acts = {
    next: () => $("matrix-next").click(),
    prev: () => $("matrix-prev").click(),
    scroll: () => { window.scrollTo(0, document.body.scrollHeight); scroller().scrollLeft = 10000; },
    top: () => { window.scrollTo(0, 0); scroller().scrollLeft = 0; },
    status: () => set("matrix-status", "failed"),
    evaluator: () => set("matrix-evaluator", "expected"),
    metadata: () => set("matrix-metadata", "group=g3", "input"),
    text: () => set("matrix-text", "answer 4242 ", "input"),
    disagree: () => set("matrix-disagree", true, "check"),
    clear: () => {
      set("matrix-status", ""); set("matrix-evaluator", ""); set("matrix-metadata", "", "input");
      set("matrix-text", "", "input"); set("matrix-disagree", false, "check");
    },
  };
  const t0 = performance.now();
  acts[action]();
  $("matrix-table").getBoundingClientRect();
  document.body.offsetHeight;
  const ms = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => r()));
  return { ms: ms, count: $("matrix-count").textContent };
}"""


def records(tasks: int, columns: int) -> list[dict[str, Any]]:
    pairs = [(p, t) for p in PROMPTS for t in TARGETS][:columns]
    out = []
    for i in range(tasks):
        for k, (p, t) in enumerate(pairs):
            ok = bool((i + k) % 7)
            out.append(
                {
                    "id": f"task-{i:06d}[{p}][{t}]",
                    "status": "passed" if ok else "failed",
                    "passed": ok,
                    "score": 1.0 if ok else 0.0,
                    "response": f"answer {i} from {p} on {t}: " + "a sentence of output " * 4,
                    "prompt_label": p,
                    "target": {"type": "echo", "label": t},
                    "metadata": {"group": f"g{i % 10}"},
                    "duration_ms": float(i % 100),
                    "usage": {"cost_usd": 0.0001},
                    "evaluators": [{"name": "expected", "passed": ok, "score": float(ok), "reason": "r"}],
                }
            )
    return out


def _time(page: Any, action: str, repeats: int = 5) -> tuple[float, float, str]:
    """The first and the median milliseconds of ``action`` (undone between tries), and the count
    it left shown."""
    undo = {"next": "prev", "scroll": "top"}.get(action, "clear")
    times, count = [], ""
    for _ in range(repeats):
        result = page.evaluate(ACT, action)
        times.append(result["ms"])
        count = result["count"]
        page.evaluate(ACT, undo)
    return times[0], statistics.median(times), count


def _opened(page: Any, url: str) -> float:
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#matrix-table tbody tr", timeout=300_000)
    return time.perf_counter() - started


def measure(page: Any, url: str, actions: list[str]) -> dict[str, Any]:
    opened = [_opened(page, url) for _ in range(2)]
    figures: dict[str, Any] = {"open (first, second) s": f"{opened[0]:.2f}, {opened[1]:.2f}"}
    figures["cells drawn"] = page.locator("#matrix-table td.cell").count()
    figures["matrix"] = page.locator("#matrix-count").inner_text()
    heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : null")
    if heap:
        figures["JS heap MB"] = f"{heap / 1e6:.0f}"
    for action in actions:
        first, median, count = _time(page, action)
        figures[f"{action} ms (first, median)"] = f"{first:.1f}, {median:.1f} ({count})"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=100_000, help="rows of the matrix")
    parser.add_argument("--columns", type=int, default=2, choices=range(2, 5), help="prompt × target columns")
    parser.add_argument("--no-view", action="store_true", help="the HTML report only")
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit("Playwright for Python is not installed (nox -s browser installs it)")
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("Chromium is not installed: apt-get install -y chromium")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    rows = records(args.tasks, args.columns)
    print(f"{args.tasks} tasks × {args.columns} columns = {len(rows)} records")
    actions = ["next", "scroll", "status", "evaluator", "metadata", "text", "disagree"]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        folder = Path(tmp)
        summary = Summary()
        for r in rows:
            summary.add(str(r["status"]))
        report = RunReport(suite="matrix", run_id="big", summary=summary, tasks=lambda: iter(rows))
        started = time.perf_counter()
        HtmlReporter().write(report, folder / "report.html")
        size = (folder / "report.html").stat().st_size
        print(f"report written in {time.perf_counter() - started:.2f} s, {size / 1e6:.1f} MB")
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        print("HTML report:")
        for name, value in measure(page, (folder / "report.html").as_uri(), actions).items():
            print(f"  {name}: {value}")
        if not args.no_view:
            run = folder / "runs" / "big"
            run.mkdir(parents=True)
            (run / "manifest.json").write_text(json.dumps({"suite": "matrix", "status": "finished"}))
            with open(run / "results.jsonl", "w", encoding="utf-8") as out:
                out.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
            server = ViewServer(folder / "runs", "127.0.0.1", 0)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            print("bench view:")
            figures = measure(page, server.url + "run/big", ["next", "disagree", "metadata"])
            for name, value in figures.items():
                print(f"  {name}: {value}")
            server.shutdown()
            server.server_close()
        browser.close()


if __name__ == "__main__":
    main()
