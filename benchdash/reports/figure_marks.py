"""The marks of a plotly figure's traces on a ReportLab drawing: lines, markers, error bars, stacked areas, grouped or
stacked bars, horizontal bars and an icicle (a flame graph). figure_drawing.py lays out the panels and calls these
with a Box per panel and the scales of figure_scales.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.graphics.shapes import Circle, Drawing, Line, Polygon, PolyLine, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from benchdash.reports.figure_scales import Trace, XScale, YScale, plain_text, trace_x
from benchdash.studies.results.charts import PALETTE

DASHES = {"dot": [1, 2], "dash": [4, 2], "dashdot": [4, 2, 1, 2]}
ICICLE_ROW = 18


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float

    def at(self, fraction_x: float, fraction_y: float) -> tuple[float, float]:
        return self.x + fraction_x * self.width, self.y + fraction_y * self.height


def paint(color: str) -> colors.Color:
    """A plotly colour: '#1d4f91', or 'rgba(250, 176, 5, 0.18)' as it shows on white (the PNG's rasteriser draws
    every fill opaque)."""
    if color.startswith("rgb"):
        red, green, blue, *alpha = (float(part) for part in color[color.index("(") + 1 : color.index(")")].split(","))
        opacity = alpha[0] if alpha else 1.0
        return colors.Color(*(1 - opacity + opacity * channel / 255 for channel in (red, green, blue)))
    return colors.HexColor(color)


def trace_color(trace: Trace, number: int) -> str:
    for part in ("line", "marker"):
        color = (trace.get(part) or {}).get("color")
        if isinstance(color, str) and color.startswith(("#", "rgb")):
            return color
    return PALETTE[number % len(PALETTE)]


def fitted(text: str, width: float, font: str, size: float) -> str:
    """The text cut with an ellipsis to fit the width."""
    text = plain_text(text)
    while text and stringWidth(text, font, size) > width:
        text = text[:-2] + "…" if len(text) > 2 else ""
    return text


def draw_scatter(drawing: Drawing, trace: Trace, color: str, box: Box, x: XScale, y: YScale) -> None:
    points = _points(trace, box, x, y)
    mode = trace.get("mode", "lines+markers")
    stroke = paint(color)
    line = trace.get("line") or {}
    if "lines" in mode:
        for run in _runs(points):
            drawing.add(
                PolyLine(
                    [value for point in run for value in point],
                    strokeColor=stroke,
                    strokeWidth=line.get("width", 1.5),
                    strokeDashArray=DASHES.get(line.get("dash", "solid")),
                )
            )
    if "markers" in mode:
        for point in points:
            if point is not None:
                drawing.add(Circle(point[0], point[1], 2.2, fillColor=stroke, strokeColor=stroke))
    _error_bars(drawing, trace, stroke, box, x, y)


def draw_area(
    drawing: Drawing, trace: Trace, color: str, box: Box, x: XScale, y: YScale, base: dict[str, float]
) -> None:
    """A scatter trace of a stackgroup: filled from the traces stacked below it."""
    edge: list[tuple[float, float]] = []
    floor: list[tuple[float, float]] = []
    for value, figure in zip(trace_x(trace), trace.get("y") or [], strict=False):
        position = x.position(value)
        if position is None or figure is None:
            continue
        below = base.get(str(value), 0.0)
        base[str(value)] = below + figure
        edge.append(box.at(position, y.position(below + figure)))
        floor.append(box.at(position, y.position(below)))
    if len(edge) > 1:
        outline = [value for point in edge + floor[::-1] for value in point]
        drawing.add(Polygon(outline, fillColor=paint(color), strokeColor=None, fillOpacity=0.6))


def draw_bars(
    drawing: Drawing, traces: Sequence[tuple[Trace, str]], box: Box, x: XScale, y: YScale, stacked: bool
) -> None:
    """Vertical bars: side by side in a category's slot, or stacked on one another."""
    slot = x.step() * box.width * 0.8
    width = slot if stacked else slot / max(len(traces), 1)
    base: dict[str, float] = {}
    for number, (trace, color) in enumerate(traces):
        bar_colors = (trace.get("marker") or {}).get("color")
        for index, (value, figure) in enumerate(zip(trace_x(trace), trace.get("y") or [], strict=False)):
            position = x.position(value)
            if position is None or figure is None:
                continue
            below = base.get(str(value), 0.0) if stacked else 0.0
            base[str(value)] = below + figure
            left = box.at(position, 0)[0] - slot / 2 + (0 if stacked else number * width)
            bottom, top = box.at(0, y.position(below))[1], box.at(0, y.position(below + figure))[1]
            fill = bar_colors[index] if isinstance(bar_colors, list) else color
            drawing.add(Rect(left, bottom, width, top - bottom, fillColor=paint(fill), strokeColor=None))


def draw_horizontal_bars(drawing: Drawing, trace: Trace, box: Box, font: str) -> None:
    """Bars along x from zero, one category per row, the first on top (perf's changes per function)."""
    names = [plain_text(name) for name in trace.get("y") or []]
    values = [float(value or 0) for value in trace.get("x") or []]
    if not names:
        return
    reach = max(abs(value) for value in values) or 1.0
    zero_x, half, row = box.x + box.width * 0.6, box.width * 0.4 - 4, box.height / len(names)
    bar_colors = (trace.get("marker") or {}).get("color")
    for index, (name, value) in enumerate(zip(names, values, strict=True)):
        top = box.y + box.height - index * row
        length = value / reach * half
        fill = bar_colors[index] if isinstance(bar_colors, list) else trace_color(trace, 0)
        left = min(zero_x, zero_x + length)
        drawing.add(Rect(left, top - row * 0.85, abs(length), row * 0.7, fillColor=paint(fill), strokeColor=None))
        label = fitted(name, box.width * 0.6 - half * (value < 0) - 8, font, 7)
        label_x = zero_x - 4 if value >= 0 else zero_x + length - 4
        drawing.add(String(label_x, top - row * 0.6, label, fontName=font, fontSize=7, textAnchor="end"))
        drawing.add(String(zero_x + (length if value >= 0 else 0) + 3, top - row * 0.6, f"{value:+.2f}", fontSize=6))
    drawing.add(Line(zero_x, box.y, zero_x, box.y + box.height, strokeColor=paint("#888888")))


def draw_icicle(drawing: Drawing, trace: Trace, box: Box, font: str) -> None:
    """The call tree, callers above callees, each node as wide as its share of its parent (branchvalues "total")."""
    labels, parents = trace.get("labels") or [], trace.get("parents") or []
    values = [float(value) for value in trace.get("values") or []]
    ids = trace.get("ids") or [str(number) for number in range(len(labels))]
    children: dict[str, list[int]] = {}
    for number, parent in enumerate(parents):
        children.setdefault(str(parent), []).append(number)
    depth_limit = min(int(trace.get("maxdepth") or 12), int(box.height // ICICLE_ROW))
    row = box.height / max(depth_limit, 1)
    roots = children.get("", [])
    total = sum(values[number] for number in roots) or 1.0
    _icicle_row(
        drawing,
        roots,
        (box.x, box.width / total),
        box.y + box.height - row,
        row,
        depth_limit,
        font,
        (labels, values, ids, children),
    )


def _icicle_row(
    drawing: Drawing,
    nodes: list[int],
    start_and_scale: tuple[float, float],
    y: float,
    row: float,
    depth_left: int,
    font: str,
    tree: tuple[list[str], list[float], list[str], dict[str, list[int]]],
) -> None:
    labels, values, ids, children = tree
    left, scale = start_and_scale
    if depth_left <= 0:
        return
    for number in nodes:
        width = values[number] * scale
        color = paint(PALETTE[number % len(PALETTE)])
        drawing.add(Rect(left, y, width, row - 1, fillColor=color, strokeColor=colors.white, strokeWidth=0.5))
        if width > 24:
            text = fitted(labels[number], width - 4, font, 7)
            drawing.add(String(left + 2, y + row / 2 - 2.5, text, fontName=font, fontSize=7, fillColor=colors.white))
        kids = children.get(ids[number], [])
        _icicle_row(drawing, kids, (left, scale), y - row, row, depth_left - 1, font, tree)
        left += width


def _points(trace: Trace, box: Box, x: XScale, y: YScale) -> list[tuple[float, float] | None]:
    points: list[tuple[float, float] | None] = []
    for value, figure in zip(trace_x(trace), trace.get("y") or [], strict=False):
        position = x.position(value)
        inside = position is not None and -0.001 <= position <= 1.001 and isinstance(figure, int | float)
        points.append(box.at(position, y.position(figure)) if inside else None)  # type: ignore[arg-type]
    return points


def _runs(points: list[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """The points between gaps (plotly breaks a line where a value is missing)."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if len(run) > 1]


def _error_bars(drawing: Drawing, trace: Trace, stroke: Any, box: Box, x: XScale, y: YScale) -> None:
    error = trace.get("error_y") or {}
    if not error.get("visible", True) or not error.get("array"):
        return
    plus, minus = error["array"], error.get("arrayminus") or error["array"]
    for value, figure, above, below in zip(trace_x(trace), trace.get("y") or [], plus, minus, strict=False):
        position = x.position(value)
        if position is None or figure is None or above is None or below is None:
            continue
        (left, low), (_left, high) = box.at(position, y.position(figure - below)), box.at(0, y.position(figure + above))
        drawing.add(Line(left, low, left, high, strokeColor=stroke, strokeWidth=1))
        for end in (low, high):
            drawing.add(Line(left - 2, end, left + 2, end, strokeColor=stroke, strokeWidth=1))
