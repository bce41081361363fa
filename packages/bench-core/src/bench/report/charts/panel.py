"""A run's charts, chosen from what its results hold, and the HTML that places them in a page."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bench.report.charts.bars import Rate, pass_rate_chart
from bench.report.charts.histogram import histogram_chart
from bench.report.charts.latency import Latency, latency_chart
from bench.report.charts.scatter import CostPoint, cost_chart
from bench.report.charts.svg import escape
from bench.report.charts.tally import Tally, percentile, tally

_DESC = re.compile(r"<desc[^>]*>(.*?)</desc>", re.DOTALL)
#: The charts a run can have, by the fixed name that makes their ids and URLs.
KINDS = ("columns", "evaluators", "scores", "cost", "latency")


@dataclass(frozen=True)
class Chart:
    """One chart: its fixed name, its title and its SVG markup."""

    kind: str
    title: str
    svg: str

    @property
    def description(self) -> str:
        """The chart's ``<desc>`` as plain text (an image's alternative text)."""
        found = _DESC.search(self.svg)
        return html.unescape(found[1]) if found else ""


def run_charts(results: Iterable[dict[str, Any]]) -> list[Chart]:
    """Every chart a run's results allow, in ``KINDS`` order."""
    counted = tally(results)
    return [chart for kind in KINDS if (chart := draw(counted, kind)) is not None]


def draw(counted: Tally, kind: str) -> Chart | None:
    """The chart ``kind`` of a counted run, or None when the run has nothing to draw for it."""
    columns = [c for c in counted.columns.values() if c.runs]
    if kind == "columns" and columns:
        rows = [Rate(c.name, c.rate, c.passed, c.runs) for c in columns if c.rate is not None]
        return _chart(kind, "Pass rate per prompt and target", pass_rate_chart, rows)
    judged = [e for e in counted.evaluators.values() if e.runs]
    if kind == "evaluators" and judged:
        rows = [Rate(e.name, e.rate, e.passed, e.runs) for e in judged if e.rate is not None]
        return _chart(kind, "Pass rate per evaluator", pass_rate_chart, rows)
    scored = [(e.name, e.scores) for e in judged if e.scores]
    if kind == "scores" and scored:
        return _chart(kind, "Scores per evaluator", histogram_chart, scored)
    priced = [CostPoint(c.name, c.cost, c.rate) for c in columns if c.cost is not None and c.rate]
    if kind == "cost" and priced:
        unpriced = [c.name for c in columns if c.cost is None]
        svg = cost_chart(priced, unpriced, "Cost against pass rate per prompt and target", f"chart-{kind}")
        return Chart(kind, "Cost against pass rate per prompt and target", svg)
    timed = [_latency(c.name, c.durations_ms) for c in columns if c.durations_ms]
    if kind == "latency" and timed:
        return _chart(kind, "Time per task per prompt and target", latency_chart, timed)
    return None


def _chart(kind: str, title: str, drawer: Any, rows: Any) -> Chart:
    return Chart(kind, title, drawer(rows, title, f"chart-{kind}"))


def _latency(name: str, durations: list[float]) -> Latency:
    ordered = sorted(durations)
    return Latency(name, *(percentile(ordered, q) for q in (0.5, 0.9, 0.99)))


def charts_html(charts: list[Chart]) -> str:
    """The charts under a heading, each a ``<figure>`` with its caption (empty when there are none)."""
    if not charts:
        return ""
    figures = "".join(
        f"<figure class='chart' data-chart='{chart.kind}'>{chart.svg}"
        f"<figcaption>{escape(chart.title)}</figcaption></figure>"
        for chart in charts
    )
    return f"<h2>Charts</h2><div class='charts'>{figures}</div>"
