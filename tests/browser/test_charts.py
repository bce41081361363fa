"""The report's charts in headless Chromium: drawn, on screen, and hostile names shown as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.report.reporters.html import HtmlReporter
from bench.vocabulary.results import RunReport, Summary

pytestmark = pytest.mark.browser

HOSTILE = "</svg><script>alert(1)</script><img src=x onerror=alert(1)>"


def _report(folder: Path) -> Path:
    tasks: list[dict[str, Any]] = [
        {
            "id": f"t{i}[{prompt}][{target}]",
            "status": "passed" if (i + k) % 3 else "failed",
            "passed": bool((i + k) % 3),
            "score": 1.0 if (i + k) % 3 else 0.0,
            "prompt_label": prompt,
            "target": {"type": "echo", "label": target},
            "duration_ms": float(5 * i + 20 * k),
            "usage": {"cost_usd": 0.001 * (k + 1)},
            "evaluators": [{"name": HOSTILE, "passed": bool((i + k) % 3), "score": ((i + k) % 3) / 2}],
        }
        for i in range(6)
        for k, (prompt, target) in enumerate([("plain", "a"), ("plain", HOSTILE), ("terse", "a")])
    ]
    summary = Summary()
    for task in tasks:
        summary.add(str(task["status"]))
    path = folder / "report.html"
    HtmlReporter().write(
        RunReport(suite="charts", run_id="r1", summary=summary, tasks=lambda: iter(tasks)), path
    )
    return path


def test_the_reports_charts_are_on_screen_with_their_text(page, tmp_path):
    page.goto(_report(tmp_path).as_uri())
    figures = page.locator("#charts figure.chart")
    kinds = [figures.nth(i).get_attribute("data-chart") for i in range(figures.count())]
    assert kinds == ["columns", "evaluators", "scores", "cost", "latency"]
    for i in range(figures.count()):
        chart = figures.nth(i).locator("svg")
        chart.scroll_into_view_if_needed()
        assert chart.is_visible()
        box = chart.bounding_box()
        assert box is not None
        assert box["width"] > 300
        assert box["height"] > 60
        # What is painted at the chart's middle is the chart itself, not something over it.
        inside = page.evaluate(
            "([x, y]) => !!document.elementFromPoint(x, y).closest('svg.chart')",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert inside
    texts = page.locator("#charts figure[data-chart=columns] svg text").all_text_contents()
    assert "plain · a" in texts
    assert "66.7% [30.0%, 90.3%] (4/6)" in texts  # plain · a passes 4 of its 6 tasks
    assert f"plain · {HOSTILE}"[:29] + "\u2026" in texts  # cut to fit, shown as text
    assert page.locator("#charts script, #charts img, #charts foreignObject").count() == 0
    title = page.locator("#charts figure[data-chart=evaluators] svg > title").text_content()
    assert title == "Pass rate per evaluator"


def _stored_run(runs: Path, run_id: str, started: str, statuses: list[str]) -> None:
    folder = runs / run_id
    folder.mkdir(parents=True)
    counts = {"passed": statuses.count("passed"), "failed": statuses.count("failed"), "errors": 0}
    manifest = {"suite": HOSTILE, "started_at": started, "status": "finished", "summary": counts}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    records = [
        {"id": f"t{i}", "status": s, "passed": s == "passed", "duration_ms": 3.0 * i, "evaluators": []}
        for i, s in enumerate(statuses)
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_bench_views_suite_and_run_pages_show_their_charts_under_its_policy(page, tmp_path, serving):
    runs = tmp_path / "runs"
    _stored_run(runs, "r1", "2026-11-01T10:00:00", ["passed", "failed", "failed"])
    _stored_run(runs, "r2", "2026-11-02T10:00:00", ["passed", "passed", "failed"])
    with serving(runs) as url:
        page.goto(url)
        page.get_by_role("link", name=HOSTILE).first.click()
        image = page.locator("#suite-chart img")
        image.wait_for()
        # Loaded and painted: the viewer's policy admits its own images.
        assert page.evaluate("(img) => img.complete && img.naturalWidth", image.element_handle()) > 200
        assert image.get_attribute("alt") == "r1: 33.3%; r2: 66.7%"
        assert page.locator("#suite-table tbody tr").count() == 2
        page.goto(url + "run/r2")
        charts = page.locator("#charts figure.chart img")
        charts.first.wait_for()
        kinds = page.locator("#charts figure.chart").evaluate_all("(fs) => fs.map((f) => f.dataset.chart)")
        assert kinds == ["columns", "latency"]
        for i in range(charts.count()):
            charts.nth(i).scroll_into_view_if_needed()
            assert charts.nth(i).evaluate("(img) => img.complete && img.naturalWidth") > 200


def test_a_live_runs_charts_are_drawn_again_when_it_finishes(page, tmp_path, serving):
    runs = tmp_path / "runs"
    folder = runs / "live"
    folder.mkdir(parents=True)
    manifest = {"suite": "live", "started_at": "2099-01-01T00:00:00", "status": "running", "tasks": 2}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    line = '{"id":"%s","status":"passed","passed":true,"duration_ms":5.0,"evaluators":[]}\n'
    (folder / "results.jsonl").write_text(line % "first")
    with serving(runs) as url:
        page.goto(f"{url}run/live")
        columns = page.locator("#charts figure[data-chart=columns] img")
        columns.wait_for()
        assert (columns.get_attribute("alt") or "").endswith("(1/1)")
        with open(folder / "results.jsonl", "a") as out:
            out.write(line % "second")
        (folder / "manifest.json").write_text(json.dumps({**manifest, "status": "finished"}))
        page.wait_for_function(
            "() => (document.querySelector('#charts figure[data-chart=columns] img') || {}).alt"
            "?.endsWith('(2/2)')",
            timeout=10_000,
        )
