"""The charts ``bench view`` serves: a run's (``/charts/runs/ID/KIND.svg``), a suite's pass rate
over its runs (``/charts/suites/NAME.svg``), two runs' pass rates side by side
(``/charts/compare.svg?a=..&b=..``), and the JSON that lists them.

The SVG is drawn server-side (``bench.report.charts``), every string in it escaped, and served
under the viewer's Content-Security-Policy, so even opened alone it runs nothing; the pages show
it as ``<img>`` with its description as the alternative text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from bench.report.charts.bars import Rate, pass_rate_chart
from bench.report.charts.panel import KINDS, draw, run_charts
from bench.report.charts.svg import document
from bench.report.charts.tally import tally
from bench.report.charts.trend import RunPoint, trend_chart
from bench.report.trend import suite_points, trend_json
from bench.report.viewer.data import NotFound, RunsView
from bench.vocabulary.errors import StoreError


def run_charts_list(view: RunsView, ref: str) -> list[dict[str, str]]:
    """``/api/runs/ID/charts``: each chart the run has, its title and where its SVG is."""
    folder = view.folder(ref)
    return [
        {
            "kind": c.kind,
            "title": c.title,
            "description": c.description,
            "url": f"/charts/runs/{quote(folder.name)}/{c.kind}.svg",
        }
        for c in run_charts(_in_id_order(view.records(folder)))
    ]


def suite_history(view: RunsView, suite: str) -> dict[str, Any]:
    """``/api/suites/NAME``: the suite's runs with their pass rates and intervals, and its chart."""
    points = _points(view, suite)
    return {
        "suite": suite,
        "runs": trend_json(points),
        "chart": f"/charts/suites/{quote(suite, safe='')}.svg",
        "description": "; ".join(f"{p.run_id}: {p.rate.value * 100:.1f}%" for p in points),
    }


def compare_chart(view: RunsView, a: str, b: str) -> str:
    """Two runs (or two targets) side by side: each one's pass rate per prompt x target."""
    rows = []
    for side, ref in (("A", a), ("B", b)):
        name, records = view.side(ref)
        for column in tally(_in_id_order(records.values())).columns.values():
            if column.rate is not None:
                label = f"{side} {name}" + (f": {column.name}" if column.name != "(all tasks)" else "")
                rows.append(Rate(label, column.rate, column.passed, column.runs))
    return pass_rate_chart(rows, "Pass rate of A and B per prompt and target", "chart-compare")


def chart_svg(view: RunsView, parts: list[str], query: dict[str, str]) -> str:
    """The SVG document at ``/charts/<parts>``: ``runs/ID/KIND.svg``, ``suites/NAME.svg`` or
    ``compare.svg?a=..&b=..``."""
    if parts == ["compare.svg"] and query.get("a") and query.get("b"):
        return document(compare_chart(view, query["a"], query["b"]))
    if len(parts) == 3 and parts[0] == "runs" and parts[2].removesuffix(".svg") in KINDS:
        folder = view.folder(parts[1])
        chart = draw(tally(_in_id_order(view.records(folder))), parts[2].removesuffix(".svg"))
        if chart is None:
            raise NotFound(f"run {folder.name} has nothing to draw in a {parts[2]} chart")
        return document(chart.svg)
    if len(parts) == 2 and parts[0] == "suites" and parts[1].endswith(".svg"):
        suite = parts[1].removesuffix(".svg")
        points = _points(view, suite)
        if not points:
            raise NotFound(f"no finished run of suite '{suite}' has counted tasks yet")
        return document(trend_chart(points, suite, "chart-trend"))
    raise NotFound(f"no chart at /charts/{'/'.join(parts)}")


def _in_id_order(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's records by task id: the store holds them as they finished, which varies run to run,
    and the columns and evaluators are drawn in the order they first appear."""

    def key(record: dict[str, Any]) -> tuple[str, int]:
        repeat = record.get("repeat")
        return str(record.get("id")), repeat if isinstance(repeat, int) else 0

    return sorted(records, key=key)


def _points(view: RunsView, suite: str) -> list[RunPoint]:
    """The suite's points, only of runs the viewer serves (none resolving outside the runs folder)."""
    served = {row["run_id"] for row in view.runs()}
    try:
        points = suite_points(view.runs_dir, suite)
    except StoreError as exc:
        raise NotFound(str(exc).removeprefix("bench runs --suite: ")) from None
    return [p for p in points if p.run_id in served]
