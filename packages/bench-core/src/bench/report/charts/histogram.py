"""Score histograms, one small panel per evaluator: how its scores spread over ten bins.

Scores from 0 to 1 fall in bins a tenth wide (a score of exactly 1 in the last); an evaluator whose
scores leave that range gets bins over the range it used. Each non-empty bin's count is written on it.
"""

from __future__ import annotations

from bench.report.charts.svg import GRID, MUTED, SERIES, Canvas, number, shorten

BINS = 10
PANEL_W, PANEL_H, PER_ROW = 320, 148, 2
PLOT_H, PLOT_W, PAD = 90.0, 280.0, 20


def bins(scores: list[float]) -> tuple[float, float, list[int]]:
    """The range the bins cover and the count of scores in each."""
    low, high = min(0.0, *scores), max(1.0, *scores)
    counts = [0] * BINS
    for score in scores:
        at = int((score - low) / (high - low) * BINS)
        counts[min(at, BINS - 1)] += 1
    return low, high, counts


def histogram_chart(panels: list[tuple[str, list[float]]], title: str, ident: str) -> str:
    """One panel per ``(evaluator name, its scores)``, two panels a row."""
    rows = (len(panels) + PER_ROW - 1) // PER_ROW
    parts = []
    for name, scores in panels:
        low, high, counts = bins(scores)
        parts.append(f"{name}: {len(scores)} scores from {number(low)} to {number(high)}, per bin {counts}")
    canvas = Canvas(PANEL_W * min(PER_ROW, len(panels)), PANEL_H * rows, title, "; ".join(parts))
    for i, (name, scores) in enumerate(panels):
        _panel(canvas, (i % PER_ROW) * PANEL_W, (i // PER_ROW) * PANEL_H, name, scores)
    return canvas.render(ident)


def _panel(canvas: Canvas, x: float, y: float, name: str, scores: list[float]) -> None:
    low, high, counts = bins(scores)
    tallest = max(counts) or 1
    base = y + 34 + PLOT_H
    canvas.text(x + PAD, y + 14, f"{shorten(name, 32)} ({len(scores)} scores)", bold=True)
    canvas.line(x + PAD, base, x + PAD + PLOT_W, base, stroke=GRID)
    width = PLOT_W / BINS
    for k, count in enumerate(counts):
        h = PLOT_H * count / tallest
        left = x + PAD + k * width
        edge = low + (high - low) * k / BINS
        canvas.rect(
            left + 1, base - h, width - 2, h, SERIES[0], tip=f"{name}: {count} scores from {number(edge)}"
        )
        if count:
            canvas.text(left + width / 2, base - h - 3, str(count), anchor="middle", size=10)
    canvas.text(x + PAD, base + 14, number(low), anchor="start", fill=MUTED, size=10)
    canvas.text(x + PAD + PLOT_W, base + 14, number(high), anchor="end", fill=MUTED, size=10)
    canvas.text(x + PAD + PLOT_W / 2, base + 14, "score", anchor="middle", fill=MUTED, size=10)
