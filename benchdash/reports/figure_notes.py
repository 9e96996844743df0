"""What a figure's layout draws over its plot: shapes (a change's line, an event's band) and notes (a change's size, an
event's text), placed by category position or by fraction of the plot as plotly places them (xref "x" or "paper",
yref "paper")."""

from __future__ import annotations

import re
from typing import Any

from reportlab.graphics.shapes import Drawing, Line, Rect, String

from benchdash.reports.figure_marks import DASHES, Box, fitted, paint
from benchdash.reports.figure_scales import XScale

NOTE_ROW = 9
TAGS = re.compile(r"<[^>]+>")


def draw_shapes(drawing: Drawing, layout: dict[str, Any], area: Box, x: XScale) -> None:
    # Bands first: a line over a band stays seen.
    shapes = sorted(layout.get("shapes") or [], key=lambda shape: shape.get("type") != "rect")
    for shape in shapes:
        left, right = _x(shape, "x0", area, x), _x(shape, "x1", area, x)
        if left is None or right is None or shape.get("yref", "paper") != "paper":
            continue
        bottom, top = area.at(0, shape.get("y0", 0))[1], area.at(0, shape.get("y1", 1))[1]
        line = shape.get("line") or {}
        if shape.get("type") == "rect":
            fill = paint(shape.get("fillcolor", "#eeeeee"))
            drawing.add(Rect(left, bottom, right - left, top - bottom, fillColor=fill, strokeColor=None))
        elif line.get("width", 1):
            stroke = paint(line.get("color", "#888888"))
            dash = DASHES.get(line.get("dash", "solid"))
            drawing.add(Line(left, bottom, right, top, strokeColor=stroke, strokeWidth=1, strokeDashArray=dash))


def draw_notes(drawing: Drawing, layout: dict[str, Any], area: Box, x: XScale, font: str) -> None:
    """Notes above the plot (y 1 of the paper), a row for each of their `yshift`s."""
    for note in layout.get("annotations") or []:
        left = _x(note, "x", area, x)
        if left is None or note.get("yref") != "paper":
            continue
        rows = round((note.get("yshift") or 0) / 14)
        text = fitted(TAGS.sub("", str(note.get("text", ""))), 200, font, 6.5)
        color = paint(((note.get("font") or {}).get("color")) or "#444444")
        y = area.at(0, note.get("y", 1))[1] + 2 + NOTE_ROW * rows
        anchor = {"left": "start", "right": "end"}.get(note.get("xanchor", "center"), "middle")
        drawing.add(String(left, y, text, fontName=font, fontSize=6.5, fillColor=color, textAnchor=anchor))


def _x(item: dict[str, Any], key: str, area: Box, x: XScale) -> float | None:
    value = item.get(key)
    if not isinstance(value, int | float):
        return None
    fraction = value if item.get("xref") == "paper" else x.fraction(float(value))
    return area.at(fraction, 0)[0] if fraction is not None and -0.01 <= fraction <= 1.01 else None
