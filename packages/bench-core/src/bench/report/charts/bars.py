"""Pass rates as horizontal bars, each with its Wilson 95% interval drawn as a whisker.

One row per column (prompt x target) or per evaluator; each row's rate, interval and counts are
written beside its bar, so the chart reads without colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.report.charts.svg import GRID, INK, MUTED, PASS, Canvas, percent, shorten
from bench.scoring.stats import Interval

LABEL_W, PLOT_X, PLOT_W, ROW_H, TOP = 200, 210.0, 260.0, 26, 40
WIDTH = 680


@dataclass(frozen=True)
class Rate:
    """One bar: what it is, its rate with interval, and the counts behind it."""

    label: str
    rate: Interval
    passed: int
    runs: int


def bar_width(rate: float) -> float:
    """How long the bar of ``rate`` is, in pixels."""
    return rate * PLOT_W


def pass_rate_chart(rows: list[Rate], title: str, ident: str) -> str:
    """The bars of ``rows``, top to bottom in their order."""
    height = TOP + ROW_H * len(rows) + 10
    desc = "; ".join(f"{r.label}: {_figures(r)}" for r in rows)
    canvas = Canvas(WIDTH, height, title, f"Pass rate with 95% Wilson interval. {desc}")
    canvas.text(PLOT_X, 12, "pass rate (bar), 95% interval (whisker)", fill=MUTED, size=11)
    for tick in (0.0, 0.5, 1.0):
        x = PLOT_X + bar_width(tick)
        canvas.line(x, TOP - 6, x, height - 10, stroke=GRID)
        canvas.text(x, TOP - 9, percent(tick).replace(".0", ""), anchor="middle", fill=MUTED, size=10)
    for i, row in enumerate(rows):
        y = TOP + i * ROW_H
        middle = y + ROW_H / 2
        canvas.text(LABEL_W, middle + 4, shorten(row.label, 30), anchor="end")
        canvas.rect(
            PLOT_X, middle - 7, bar_width(row.rate.value), 14, PASS, tip=f"{row.label}: {_figures(row)}"
        )
        low, high = PLOT_X + bar_width(row.rate.low), PLOT_X + bar_width(row.rate.high)
        canvas.line(low, middle, high, middle, stroke=INK, width=1.5)
        canvas.line(low, middle - 5, low, middle + 5, stroke=INK, width=1.5)
        canvas.line(high, middle - 5, high, middle + 5, stroke=INK, width=1.5)
        canvas.text(PLOT_X + PLOT_W + 10, middle + 4, _figures(row), size=11)
    return canvas.render(ident)


def _figures(row: Rate) -> str:
    r = row.rate
    return f"{percent(r.value)} [{percent(r.low)}, {percent(r.high)}] ({row.passed}/{row.runs})"
