"""SVG primitives for the charts: a canvas of shapes and text, every string from a run escaped.

A chart is an ``<svg role="img">`` whose ``<title>`` and ``<desc>`` say what it shows, and whose
figures are written as text beside the marks, so nothing is told by colour alone. Text from a run
(a target's label, an evaluator's name) is escaped as XML and stripped of characters XML cannot
hold, so the same markup is safe inline in an HTML page and served alone as ``image/svg+xml``.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

#: Characters no XML document may hold (a run's text can have any of them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
NAMESPACE = "http://www.w3.org/2000/svg"
FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"
INK, MUTED, GRID = "#1f2328", "#656d76", "#d0d7de"
PASS, FAIL = "#1a7f37", "#cf222e"
#: Series told apart by shape and by a text label as well as by colour.
SERIES = ("#0969da", "#8250df", "#bf3989", "#1a7f37", "#9a6700", "#cf222e")


def escape(text: object) -> str:
    """``text`` as XML character data or an attribute value."""
    return html.escape(_NOT_XML.sub("\ufffd", str(text)), quote=True)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (the whole text goes in a tooltip)."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def number(value: float) -> str:
    """A coordinate as short text."""
    return f"{value:.1f}".removesuffix(".0")


def percent(rate: float) -> str:
    return f"{rate * 100:.1f}%"


@dataclass
class Canvas:
    """An SVG document being drawn: ``width`` x ``height`` pixels, its marks in drawing order."""

    width: float
    height: float
    title: str
    desc: str
    marks: list[str] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, tip: str = "", **extra: str) -> None:
        attrs = _attrs(x=x, y=y, width=max(w, 0.0), height=max(h, 0.0), fill=fill, **extra)
        self.marks.append(f"<rect{attrs}>{_tip(tip)}</rect>")

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = INK, width: float = 1) -> None:
        self.marks.append(
            f"<line{_attrs(x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke)} stroke-width='{width}'/>"
        )

    def polyline(self, points: list[tuple[float, float]], stroke: str, dashed: bool = False) -> None:
        text = " ".join(f"{number(x)},{number(y)}" for x, y in points)
        dash = " stroke-dasharray='4 3'" if dashed else ""
        self.marks.append(
            f"<polyline points='{text}' fill='none' stroke='{stroke}' stroke-width='1.5'{dash}/>"
        )

    def marker(self, shape: str, x: float, y: float, fill: str, tip: str = "") -> None:
        """A point drawn as ``circle``, ``square``, ``triangle`` or ``diamond`` (shape tells series apart)."""
        r = 5.0
        if shape == "circle":
            body = f"<circle{_attrs(cx=x, cy=y, r=r, fill=fill)}>"
            self.marks.append(f"{body}{_tip(tip)}</circle>")
            return
        corners = {
            "square": [(-r, -r), (r, -r), (r, r), (-r, r)],
            "triangle": [(0, -r - 1), (r + 1, r), (-r - 1, r)],
            "diamond": [(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
        }[shape]
        points = " ".join(f"{number(x + dx)},{number(y + dy)}" for dx, dy in corners)
        self.marks.append(f"<polygon points='{points}' fill='{fill}'>{_tip(tip)}</polygon>")

    def text(
        self,
        x: float,
        y: float,
        text: str,
        anchor: str = "start",
        size: int = 12,
        fill: str = INK,
        bold: bool = False,
    ) -> None:
        weight = " font-weight='600'" if bold else ""
        attrs = _attrs(x=x, y=y, fill=fill)
        self.marks.append(
            f"<text{attrs} font-size='{size}' text-anchor='{anchor}'{weight}>{escape(text)}</text>"
        )

    def render(self, ident: str) -> str:
        """The document; ``ident`` (a fixed name, never from a run) makes the title's and desc's ids."""
        head = (
            f"<svg class='chart' role='img' width='{number(self.width)}' "
            f"height='{number(self.height)}' viewBox='0 0 {number(self.width)} {number(self.height)}' "
            f"aria-labelledby='{ident}-title {ident}-desc' font-family=\"{FONT}\">"
        )
        labels = (
            f"<title id='{ident}-title'>{escape(self.title)}</title>"
            f"<desc id='{ident}-desc'>{escape(self.desc)}</desc>"
        )
        return head + labels + "".join(self.marks) + "</svg>"


def document(svg: str) -> str:
    """A chart served alone (``image/svg+xml``): the namespace an HTML page leaves implicit."""
    return svg.replace("<svg ", f"<svg xmlns='{NAMESPACE}' ", 1)


def _attrs(**values: float | str) -> str:
    parts = []
    for name, value in values.items():
        shown = number(value) if isinstance(value, float | int) else escape(value)
        parts.append(f" {name.replace('_', '-')}='{shown}'")
    return "".join(parts)


def _tip(text: str) -> str:
    """A tooltip: a ``<title>`` child, read by screen readers and shown on hover."""
    return f"<title>{escape(text)}</title>" if text else ""
