"""Regenerate the report's pictures in docs/images/ (docs/reports.md): a quickstart-style suite of
two prompts on three targets, run three times against bench's fake OpenAI-compatible server, then
photographed by headless Chromium (``chromium --headless --screenshot``).

    python scripts/screenshots.py                 # writes docs/images/report-*.png
    python scripts/screenshots.py --out /tmp/pics # somewhere else
    python scripts/screenshots.py --no-browser    # only the pages (what tests/test_screenshots.py runs)

``generate`` makes the pages: the run's HTML report, each chart alone as SVG, the suite's trend,
and for the views that need a click (the matrix with its disagreement filter, a diff of two cells)
a small page of this script's own that frames the report and clicks for it. The report itself is
unchanged: its Content-Security-Policy governs it inside the frame. ``shoot`` photographs them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench
from bench.report.charts.panel import run_charts
from bench.report.charts.svg import document
from bench.report.charts.trend import trend_chart
from bench.report.reporters.html import HtmlReporter
from bench.report.trend import suite_points
from bench.report.viewer.server import ViewServer
from bench.testing.server import FakeLLMServer, Reply

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"small": 0.004, "medium": 0.012, "large": 0.03}  # each model's latency in seconds
#: What each model answers, by a word of the question; a miss is the model's wrong answer.
ANSWERS = {
    "small": {"France": "Paris", "times": "42", "capitals": "Paris, Berlin, Madrid", "Australia": "Sydney"},
    "medium": {
        "France": "Paris.",
        "times": "It is 42.",
        "capitals": "Paris, Berlin, Rome",
        "Australia": "Sydney",
    },
    "large": {
        "France": "Paris",
        "times": "42",
        "capitals": "Paris, Berlin and Rome",
        "Australia": "Canberra",
    },
}
SUITE = """\
# A quickstart-style suite: two prompts on three models (a fake server answers them).
name: quickstart-matrix
prompts:
  - {{label: plain, template: "{{prompt}}"}}
  - {{label: terse, template: "Answer in a few words. {{prompt}}"}}
targets:
{targets}
pricing:
  models:
{pricing}
tasks:
  - id: capital-of-france
    prompt: "What is the capital of France?"
    metadata: {{topic: geography}}
    evaluate: {{expected: Paris}}
  - {{id: arithmetic, prompt: "What is 6 times 7?", metadata: {{topic: maths}}, evaluate: {{expected: 42}}}}
  - id: several-capitals
    prompt: "Name three European capitals."
    metadata: {{topic: geography}}
    evaluate: {{expected: ["Paris", "Berlin", {{regex: "R[o0]me"}}]}}
  - id: capital-of-australia
    prompt: "What is the capital of Australia?"
    metadata: {{topic: geography}}
    evaluate: {{expected: Canberra}}
"""


@dataclass(frozen=True)
class Shot:
    """One picture: the page to open, the PNG's name, the window's size."""

    url: str
    name: str
    width: int
    height: int


def _suite(folder: Path, api_base: str) -> Path:
    targets = "\n".join(
        f"  - {{label: {name}, type: litellm, model: openai/{name}, api_base: '{api_base}', "
        "api_key_env: BENCH_SCREENSHOTS_KEY}"
        for name in TARGETS
    )
    pricing = "\n".join(
        f"    - {{model: openai/{name}, input_cost_per_million_tokens: {k * 2}, "
        f"output_cost_per_million_tokens: {k * 8}}}"
        for k, name in enumerate(TARGETS, start=1)
    )
    path = folder / "suite.yaml"
    path.write_text(SUITE.format(targets=targets, pricing=pricing), encoding="utf-8")
    return path


def _responder(improved: bool) -> Any:
    """The fake server's answers; ``improved``: the small model gets Australia right too."""

    def answer(body: dict[str, Any]) -> Reply:
        model = str(body.get("model", "")).removeprefix("openai/")
        question = str(body["messages"][-1]["content"])
        answers = ANSWERS.get(model, {})
        text = next((a for word, a in answers.items() if word in question), "I do not know.")
        if improved and model == "small" and "Australia" in question:
            text = "Canberra"
        terse = question.startswith("Answer in a few words")
        if terse and model == "medium" and "capitals" in question:
            text = "Paris, Berlin"
        return Reply(text, latency_s=TARGETS.get(model, 0.0), prompt_tokens=20, completion_tokens=8)

    return answer


def generate(folder: Path) -> list[Shot]:
    """Run the suite three times into ``folder`` and write every page to photograph there."""
    runs = folder / "runs"
    os.environ.setdefault("BENCH_SCREENSHOTS_KEY", "sk-fake")  # the fake server takes any key
    with FakeLLMServer() as server:
        suite = _suite(folder, server.url)
        for improved in (False, False, True):
            server.default = _responder(improved)
            result = bench.run(suite, runs_dir=runs, cache=False)
    report = folder / "report.html"
    HtmlReporter().write(result.report, report)
    shots = []
    for chart in run_charts(result.report.tasks()):
        path = folder / f"chart-{chart.kind}.svg"
        path.write_text(document(chart.svg), encoding="utf-8")
        width, height = _size(chart.svg)
        shots.append(Shot(path.as_uri(), f"chart-{chart.kind}.png", width, height))
    trend = document(trend_chart(suite_points(runs, "quickstart-matrix"), "quickstart-matrix", "chart-trend"))
    (folder / "chart-trend.svg").write_text(trend, encoding="utf-8")
    shots.append(Shot((folder / "chart-trend.svg").as_uri(), "chart-trend.png", *_size(trend)))
    shots.append(Shot(_framed(folder, "matrix", MATRIX), "report-matrix-disagree.png", 1440, 520))
    shots.append(Shot(_framed(folder, "diff", DIFF), "report-diff-cells.png", 1280, 220))
    shots.append(Shot(_framed(folder, "charts", CHARTS), "report-charts.png", 1280, 900))
    # bench view's pages, served from the same runs while they are photographed (``_viewer``)
    shots.append(Shot(f"{VIEWER}/suite/quickstart-matrix", "view-suite.png", 1100, 560))
    shots.append(Shot(f"{VIEWER}/run/{result.run_id}", "view-run-charts.png", 1280, 900))
    return shots


#: Stands for the viewer's address in a ``Shot``'s URL until it listens.
VIEWER = "viewer:"


@contextmanager
def _viewer(runs: Path) -> Iterator[str]:
    """``bench view`` over ``runs`` on a free loopback port, for the pictures of its pages."""
    server = ViewServer(runs, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url.rstrip("/")
    finally:
        server.shutdown()
        server.server_close()


def _size(svg: str) -> tuple[int, int]:
    head = svg[: svg.index(">")]
    width = head.split("width='", 1)[1].split("'", 1)[0]
    height = head.split("height='", 1)[1].split("'", 1)[0]
    # Headless Chromium paints nothing in a window under about 100 pixels high.
    return int(float(width)) + 16, max(int(float(height)) + 16, 150)


#: What each framing page does in the report once it has loaded (``d`` is the report's document).
MATRIX = """
const box = d.getElementById("matrix-disagree");
box.click();
d.getElementById("matrix").scrollIntoView();
"""
DIFF = """
const rows = d.querySelectorAll("#matrix-table tbody tr");
const row = Array.from(rows).find((r) => r.textContent.includes("several-capitals"));
const buttons = Array.from(row.querySelectorAll("button")).filter((b) => b.classList.contains("pick"));
buttons[0].click();
buttons[2].click();
d.getElementById("matrix-diff").scrollIntoView();
"""
CHARTS = """
d.getElementById("charts").scrollIntoView();
"""
FRAME = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>html, body, iframe {{ margin: 0; border: 0; width: 100%;
height: 100%; overflow: hidden; }}</style></head>
<body><iframe id="report" src="report.html"></iframe>
<script>
document.getElementById("report").addEventListener("load", () => {{
  const d = document.getElementById("report").contentDocument;
  {steps}
}});
</script></body></html>
"""


def _framed(folder: Path, name: str, steps: str) -> str:
    """A page of this script's own that loads the report in a frame and does ``steps`` in it."""
    path = folder / f"frame-{name}.html"
    path.write_text(FRAME.format(steps=steps), encoding="utf-8")
    return path.as_uri()


def shoot(shots: list[Shot], runs: Path, out: Path, chromium: str) -> list[Path]:
    """Photograph each page with headless Chromium into ``out`` (``bench view`` serving ``runs``)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with _profile() as profile, _viewer(runs) as viewer:
        for shot in shots:
            target = out / shot.name
            command = [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--allow-file-access-from-files",  # the framing page reaches into the report
                f"--user-data-dir={profile}",
                "--virtual-time-budget=3000",
                f"--window-size={shot.width},{shot.height}",
                f"--screenshot={target}",
                shot.url.replace(VIEWER, viewer, 1),
            ]
            subprocess.run(command, check=True, capture_output=True, timeout=120)
            written.append(target)
    return written


@contextmanager
def _profile() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="bench-chromium-") as folder:
        yield Path(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="where the PNGs go")
    parser.add_argument("--no-browser", action="store_true", help="write the pages only, print where")
    parser.add_argument("--keep", type=Path, help="write the pages here (default: a temporary folder)")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not args.no_browser and chromium is None:
        print("screenshots: Chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-screenshots-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("BENCH_CACHE_DIR", str(folder / "cache"))
        shots = generate(folder)
        if args.no_browser or chromium is None:
            print(json.dumps([shot.url for shot in shots], indent=2))
            return 0
        for path in shoot(shots, folder / "runs", args.out, chromium):
            print(f"{path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
