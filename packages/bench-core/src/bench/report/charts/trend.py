"""A suite's pass rate over its runs, oldest first, each run's Wilson 95% interval as a whisker.

Each point is labelled with its rate under it and its date on the axis; the line between points
only guides the eye."""

from __future__ import annotations

from dataclasses import dataclass

from bench.report.charts.svg import GRID, INK, MUTED, SERIES, Canvas, percent
from bench.scoring.stats import Interval

LEFT, TOP, PLOT_H, STEP = 60.0, 20.0, 200.0, 70.0
#: The most runs drawn (the newest); older ones are said in the description.
MOST = 30


@dataclass(frozen=True)
class RunPoint:
    """One run of the suite: its id, when it started, its pass rate with interval, its cost."""

    run_id: str
    when: str
    rate: Interval
    passed: int
    runs: int
    cost: float | None = None


def point_at(index: int, rate: float) -> tuple[float, float]:
    """Where run ``index`` (0 the oldest drawn) with pass rate ``rate`` goes."""
    return LEFT + STEP / 2 + STEP * index, TOP + PLOT_H * (1 - rate)


def trend_chart(points: list[RunPoint], suite: str, ident: str) -> str:
    shown = points[-MOST:]
    older = f" ({len(points) - len(shown)} older runs not drawn)" if len(points) > len(shown) else ""
    listed = "; ".join(f"{p.run_id} ({p.when}): {_figures(p)}" for p in shown)
    title = f"Pass rate of suite {suite} over its runs"
    canvas = Canvas(LEFT + STEP * len(shown) + 20, TOP + PLOT_H + 50, title, f"Oldest first{older}. {listed}")
    bottom = TOP + PLOT_H
    for tick in (0.0, 0.5, 1.0):
        y = TOP + PLOT_H * (1 - tick)
        canvas.line(LEFT, y, LEFT + STEP * len(shown), y, stroke=GRID)
        canvas.text(LEFT - 6, y + 4, percent(tick).replace(".0", ""), anchor="end", fill=MUTED, size=10)
    canvas.polyline([point_at(i, p.rate.value) for i, p in enumerate(shown)], SERIES[0], dashed=True)
    label_every = max(1, len(shown) // 12)
    for i, point in enumerate(shown):
        x, y = point_at(i, point.rate.value)
        _, low = point_at(i, point.rate.low)
        _, high = point_at(i, point.rate.high)
        canvas.line(x, low, x, high, stroke=INK, width=1.2)
        canvas.line(x - 4, low, x + 4, low, stroke=INK, width=1.2)
        canvas.line(x - 4, high, x + 4, high, stroke=INK, width=1.2)
        canvas.marker("circle", x, y, SERIES[0], tip=f"{point.run_id} ({point.when}): {_figures(point)}")
        canvas.text(x + 7, y - 6, percent(point.rate.value), size=10)
        if i % label_every == 0:
            canvas.text(x, bottom + 16, point.when[:10], anchor="middle", fill=MUTED, size=10)
            canvas.text(x, bottom + 30, point.when[11:16], anchor="middle", fill=MUTED, size=10)
    return canvas.render(ident)


def _figures(point: RunPoint) -> str:
    r = point.rate
    cost = "" if point.cost is None else f", ${point.cost:.4f}"
    return f"{percent(r.value)} [{percent(r.low)}, {percent(r.high)}] ({point.passed}/{point.runs}){cost}"
