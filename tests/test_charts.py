"""The report's charts, drawn server-side as SVG: their geometry, their text and their escaping."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from bench.report.charts import bars, latency, scatter, trend
from bench.report.charts.histogram import bins, histogram_chart
from bench.report.charts.panel import KINDS, charts_html, run_charts
from bench.report.charts.svg import document
from bench.report.charts.tally import tally
from bench.scoring.stats import wilson

NS = {"s": "http://www.w3.org/2000/svg"}
HOSTILE = "</svg><script>alert(1)</script>\x00 <img src=x onerror=alert(1)> & 'q' \"dq\""


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(document(svg))


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]


def _result(prompt: str, target: str, passed: bool, **more: Any) -> dict[str, Any]:
    return {
        "id": f"t[{prompt}][{target}]",
        "status": "passed" if passed else "failed",
        "prompt_label": prompt,
        "target": {"type": "echo", "label": target},
        "evaluators": [{"name": "expected", "passed": passed, "score": 1.0 if passed else 0.0}],
        **more,
    }


def test_columns_are_prompt_by_target_and_never_mix_a_targets_prompts():
    results = [
        _result("plain", "a", True),
        _result("terse", "a", False),
        _result("plain", "b", True),
        _result("plain", "b", False),
        _result("terse", "b", False),
    ]
    columns = tally(results).columns
    assert [(c.name, c.passed, c.runs) for c in columns.values()] == [
        ("plain · a", 1, 1),
        ("terse · a", 0, 1),
        ("plain · b", 1, 2),
        ("terse · b", 0, 1),
    ]


def test_an_evaluator_that_errored_counts_as_not_passed_and_gives_no_score():
    results = [
        {
            "status": "error",
            "evaluators": [{"name": "judge", "passed": True, "error": "timeout", "score": None}],
        },
        {"status": "passed", "evaluators": [{"name": "judge", "passed": True, "score": 0.8}]},
    ]
    judge = tally(results).evaluators["judge"]
    assert (judge.passed, judge.runs, judge.scores) == (1, 2, [0.8])


def test_a_pass_rate_bar_is_as_long_as_its_rate_and_its_whisker_spans_the_wilson_interval():
    rate = wilson(6, 10)
    root = _parse(bars.pass_rate_chart([bars.Rate("gpt", rate, 6, 10)], "Pass rate", "c"))
    (bar,) = root.findall("s:rect", NS)
    assert float(bar.get("width", "")) == pytest.approx(0.6 * bars.PLOT_W, abs=0.05)
    assert float(bar.get("x", "")) == bars.PLOT_X
    ends = sorted(
        {float(line.get("x1", "")) for line in root.findall("s:line", NS) if line.get("stroke") != "#d0d7de"}
    )
    assert ends == pytest.approx(
        [bars.PLOT_X + rate.low * bars.PLOT_W, bars.PLOT_X + rate.high * bars.PLOT_W], abs=0.05
    )
    assert "60.0% [31.3%, 83.2%] (6/10)" in _texts(root)
    assert "gpt" in _texts(root)


def test_histogram_bins_are_tenths_with_a_score_of_one_in_the_last():
    assert bins([0.0, 0.05, 0.1, 0.99, 1.0]) == (0.0, 1.0, [2, 1, 0, 0, 0, 0, 0, 0, 0, 2])
    assert bins([-1.0, 3.0]) == (-1.0, 3.0, [1, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    root = _parse(histogram_chart([("bleu", [0.0, 0.05, 1.0])], "Scores", "h"))
    heights = [float(r.get("height", "")) for r in root.findall("s:rect", NS)]
    assert heights == pytest.approx([90.0, 0, 0, 0, 0, 0, 0, 0, 0, 45.0])
    assert "bleu (3 scores)" in _texts(root)


def test_cost_points_sit_at_their_cost_and_pass_rate_and_unpriced_columns_are_named():
    points = [scatter.CostPoint("cheap", 0.01, wilson(1, 2)), scatter.CostPoint("dear", 0.04, wilson(2, 2))]
    root = _parse(scatter.cost_chart(points, ["local"], "Cost", "s"))
    most = 0.04 * 1.1
    x, y = scatter.position(0.01, 0.5, most)
    assert x == pytest.approx(scatter.LEFT + scatter.PLOT_W * 0.01 / most)
    assert y == pytest.approx(scatter.TOP + scatter.PLOT_H / 2)
    circle = root.find("s:circle", NS)
    assert circle is not None
    assert (float(circle.get("cx", "")), float(circle.get("cy", ""))) == pytest.approx((x, y), abs=0.05)
    assert {"cheap", "dear", "no cost recorded:", "local"} <= set(_texts(root))
    assert "No cost recorded for: local." in (root.findtext("s:desc", namespaces=NS) or "")


def test_latency_percentiles_are_drawn_as_three_shapes_with_their_values_written():
    results = [_result("p", "a", True, duration_ms=float(ms)) for ms in range(1, 101)]
    (chart,) = [c for c in run_charts(results) if c.kind == "latency"]
    root = _parse(chart.svg)
    assert "p50 50 ms, p90 90 ms, p99 99 ms" in _texts(root)
    circles = [c for c in root.findall("s:circle", NS) if c.find("s:title", NS) is not None]
    assert float(circles[0].get("cx", "")) == pytest.approx(latency.x_of(50.5, 99.01), abs=0.05)
    # p90's square and p99's triangle, in the legend and on the row
    assert len(root.findall("s:polygon", NS)) == 2 + 2


def test_the_trend_draws_each_run_at_its_rate_with_its_interval():
    points = [
        trend.RunPoint("r1", "2026-11-01T10:00:00", wilson(1, 4), 1, 4),
        trend.RunPoint("r2", "2026-11-02T10:00:00", wilson(3, 4), 3, 4, cost=0.5),
    ]
    root = _parse(trend.trend_chart(points, "qa", "t"))
    circles = root.findall("s:circle", NS)
    drawn = [float(c.get(axis, "")) for c in circles for axis in ("cx", "cy")]
    assert drawn == pytest.approx([*trend.point_at(0, 0.25), *trend.point_at(1, 0.75)], abs=0.05)
    assert root.findtext("s:title", namespaces=NS) == "Pass rate of suite qa over its runs"
    assert {"25.0%", "75.0%", "2026-11-01", "10:00"} <= set(_texts(root))
    assert "r2 (2026-11-02T10:00:00): 75.0% [30.1%, 95.4%] (3/4), $0.5000" in (
        root.findtext("s:desc", namespaces=NS) or ""
    )


def test_hostile_names_are_text_in_every_chart():
    results = [
        {
            **_result(HOSTILE, HOSTILE, ok, duration_ms=5.0, usage={"cost_usd": 0.1}),
            "evaluators": [{"name": HOSTILE, "passed": ok, "score": 0.5}],
        }
        for ok in (True, False)
    ]
    charts = run_charts(results)
    assert [c.kind for c in charts] == list(KINDS)
    for chart in charts:
        root = _parse(chart.svg)  # well-formed XML: nothing ended the element early
        assert not [e for e in root.iter() if e.tag.split("}")[-1] in ("script", "img", "foreignObject")]
        assert "<script" not in chart.svg
        assert "<img" not in chart.svg
        shown = " ".join(_texts(root)) + (root.findtext("s:desc", namespaces=NS) or "")
        assert "alert(1)" in shown
    page = charts_html(charts)
    assert "<script" not in page
    assert "\x00" not in page


def test_every_chart_is_an_image_with_a_title_and_a_description():
    results = [
        _result(p, t, ok, duration_ms=3.0, usage={"cost_usd": 0.01})
        for p in "xy"
        for t in "ab"
        for ok in (1, 0)
    ]
    for chart in run_charts(results):
        root = _parse(chart.svg)
        assert root.get("role") == "img"
        title, desc = root.find("s:title", NS), root.find("s:desc", NS)
        assert title is not None
        assert desc is not None
        assert title.text == chart.title
        assert root.get("aria-labelledby") == f"chart-{chart.kind}-title chart-{chart.kind}-desc"
        assert desc.text


def test_a_run_without_costs_or_durations_has_no_cost_or_latency_chart():
    results = [_result("p", "a", True), _result("p", "a", False)]
    assert [c.kind for c in run_charts(results)] == ["columns", "evaluators", "scores"]
    assert run_charts([]) == []
    assert charts_html([]) == ""


def test_labels_of_points_at_one_spot_stack_instead_of_overlapping():
    same = wilson(3, 4)
    points = [scatter.CostPoint("plain · small", 0.01, same), scatter.CostPoint("terse · small", 0.01, same)]
    root = _parse(scatter.cost_chart(points, [], "Cost", "s"))
    labels = {t.text: float(t.get("y", "")) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert labels["terse · small"] - labels["plain · small"] == pytest.approx(13)
