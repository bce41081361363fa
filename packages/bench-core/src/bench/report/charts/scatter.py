"""Cost against pass rate, one point per column (prompt x target), the pass rate's interval as a
vertical whisker: up and to the left is better. Each point carries its column's name as text and
its own shape, so no point is told from another by colour alone."""

from __future__ import annotations

from dataclasses import dataclass

from bench.report.charts.svg import GRID, INK, MUTED, SERIES, Canvas, percent, shorten
from bench.scoring.stats import Interval

SHAPES = ("circle", "square", "triangle", "diamond")
LEFT, TOP, PLOT_W, PLOT_H = 60.0, 20.0, 420.0, 240.0
WIDTH, HEIGHT = 680, 300


@dataclass(frozen=True)
class CostPoint:
    """One column: its name, total cost in USD and pass rate with interval."""

    label: str
    cost: float
    rate: Interval


def position(cost: float, rate: float, most: float) -> tuple[float, float]:
    """Where a point of ``cost`` and ``rate`` goes when the x axis ends at ``most`` dollars."""
    return LEFT + PLOT_W * (cost / most if most > 0 else 0.0), TOP + PLOT_H * (1 - rate)


def cost_chart(points: list[CostPoint], unpriced: list[str], title: str, ident: str) -> str:
    """The points; ``unpriced`` names the columns without a recorded cost (said in the description)."""
    most = max(p.cost for p in points) * 1.1 or 1.0
    listed = "; ".join(f"{p.label}: ${p.cost:.4f}, pass rate {_rate(p.rate)}" for p in points)
    missing = f" No cost recorded for: {', '.join(unpriced)}." if unpriced else ""
    canvas = Canvas(WIDTH, HEIGHT, title, f"Total cost (x) against pass rate (y). {listed}.{missing}")
    bottom = TOP + PLOT_H
    canvas.line(LEFT, TOP, LEFT, bottom, stroke=GRID)
    canvas.line(LEFT, bottom, LEFT + PLOT_W, bottom, stroke=GRID)
    for tick in (0.0, 0.5, 1.0):
        y = TOP + PLOT_H * (1 - tick)
        canvas.text(LEFT - 6, y + 4, percent(tick).replace(".0", ""), anchor="end", fill=MUTED, size=10)
    canvas.text(LEFT, bottom + 16, "$0", anchor="middle", fill=MUTED, size=10)
    canvas.text(LEFT + PLOT_W, bottom + 16, f"${most:.4f}", anchor="middle", fill=MUTED, size=10)
    canvas.text(LEFT + PLOT_W / 2, bottom + 30, "total cost (USD)", anchor="middle", fill=MUTED, size=11)
    canvas.text(12, TOP - 6, "pass rate", fill=MUTED, size=11)
    placed: dict[tuple[int, int], int] = {}  # points drawn at one spot: their labels stack
    for i, point in enumerate(points):
        x, y = position(point.cost, point.rate.value, most)
        spot = (round(x), round(y))
        stacked = placed[spot] = placed.get(spot, -1) + 1
        _, low = position(point.cost, point.rate.low, most)
        _, high = position(point.cost, point.rate.high, most)
        canvas.line(x, low, x, high, stroke=INK, width=1.2)
        tip = f"{point.label}: ${point.cost:.4f}, {_rate(point.rate)}"
        canvas.marker(SHAPES[i % len(SHAPES)], x, y, SERIES[i % len(SERIES)], tip=tip)
        canvas.text(x + 9, y - 6 + 13 * stacked, shorten(point.label, 28), size=11)
    if unpriced:
        canvas.text(LEFT + PLOT_W + 12, TOP + 10, "no cost recorded:", fill=MUTED, size=11)
        for k, name in enumerate(unpriced[:10]):
            canvas.text(LEFT + PLOT_W + 12, TOP + 26 + 14 * k, shorten(name, 24), fill=MUTED, size=11)
    return canvas.render(ident)


def _rate(rate: Interval) -> str:
    return f"{percent(rate.value)} [{percent(rate.low)}, {percent(rate.high)}]"
