"""Latency percentiles per column (prompt x target): p50, p90 and p99 of the time per task on
one axis, each percentile its own shape and its value written beside the row."""

from __future__ import annotations

from dataclasses import dataclass

from bench.report.charts.svg import GRID, INK, MUTED, SERIES, Canvas, shorten

LABEL_W, PLOT_X, PLOT_W, ROW_H, TOP = 200, 210.0, 260.0, 26, 40
WIDTH = 720
#: Each percentile's shape and colour (shape alone tells them apart).
MARKS = {"p50": ("circle", SERIES[0]), "p90": ("square", SERIES[1]), "p99": ("triangle", SERIES[2])}


@dataclass(frozen=True)
class Latency:
    """One column's percentiles, in milliseconds."""

    label: str
    p50: float
    p90: float
    p99: float


def x_of(ms: float, most: float) -> float:
    """Where ``ms`` goes when the axis ends at ``most`` milliseconds."""
    return PLOT_X + PLOT_W * (ms / most if most > 0 else 0.0)


def latency_chart(rows: list[Latency], title: str, ident: str) -> str:
    most = max(r.p99 for r in rows) or 1.0
    height = TOP + ROW_H * len(rows) + 24
    desc = "; ".join(f"{r.label}: {_figures(r)}" for r in rows)
    canvas = Canvas(WIDTH, height, title, f"Time per task, percentiles. {desc}")
    legend_x = PLOT_X
    for name, (shape, colour) in MARKS.items():
        canvas.marker(shape, legend_x, 12, colour)
        canvas.text(legend_x + 9, 16, name, size=11)
        legend_x += 50
    bottom = TOP + ROW_H * len(rows)
    canvas.line(PLOT_X, bottom, PLOT_X + PLOT_W, bottom, stroke=GRID)
    canvas.text(PLOT_X, bottom + 14, "0 ms", anchor="middle", fill=MUTED, size=10)
    canvas.text(PLOT_X + PLOT_W, bottom + 14, f"{most:.0f} ms", anchor="middle", fill=MUTED, size=10)
    for i, row in enumerate(rows):
        middle = TOP + i * ROW_H + ROW_H / 2
        canvas.text(LABEL_W, middle + 4, shorten(row.label, 30), anchor="end")
        canvas.line(x_of(row.p50, most), middle, x_of(row.p99, most), middle, stroke=INK)
        for name, (shape, colour) in MARKS.items():
            value = getattr(row, name)
            canvas.marker(shape, x_of(value, most), middle, colour, tip=f"{row.label}: {name} {value:.0f} ms")
        canvas.text(PLOT_X + PLOT_W + 12, middle + 4, _figures(row), size=11)
    return canvas.render(ident)


def _figures(row: Latency) -> str:
    return f"p50 {row.p50:.0f} ms, p90 {row.p90:.0f} ms, p99 {row.p99:.0f} ms"
