"""Any of benchdash's plotly figures drawn by the report's own renderer (ReportLab shapes: SVG keeps its text as text,
raster.py makes the PNG), so that every chart of the pages can be an embedded image without a browser on the server.

The drawing: the title and subtitle on top, a panel per y axis that does not overlay another (the trial's timeline
has four, stacked by their domains; an overlaying axis shares its panel and labels its ticks on the right), the x axis
under the lowest panel, and a legend of the named traces under it. An icicle (a flame graph) or horizontal bars (perf's
changes) fill the plot area alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.lib import colors

from benchdash.reports.figure_marks import (
    Box,
    draw_area,
    draw_bars,
    draw_horizontal_bars,
    draw_icicle,
    draw_scatter,
    fitted,
    paint,
    trace_color,
)
from benchdash.reports.figure_notes import draw_notes, draw_shapes
from benchdash.reports.figure_scales import Trace, XScale, YScale, plain_text, x_scale, y_scale

GRID = colors.HexColor("#dddddd")
AXIS_TEXT = colors.HexColor("#444444")
LEGEND_COLUMNS = 3
LEGEND_ROW = 12
PANEL_GAP = 14


def figure_drawing(
    figure: dict[str, Any], *, title: str, subtitle: str, width: float, height: float, font: str
) -> Drawing:
    layout = figure.get("layout") or {}
    traces = [trace for trace in figure.get("data") or [] if trace.get("visible", True) is True]
    drawing = Drawing(width, height)
    drawing.add(String(0, height - 12, fitted(title, width, font, 10), fontName=font, fontSize=10))
    drawing.add(
        String(0, height - 24, fitted(subtitle, width, font, 8), fontName=font, fontSize=8, fillColor=AXIS_TEXT)
    )
    legend = _legend_entries(traces)
    legend_height = -(-len(legend) // LEGEND_COLUMNS) * LEGEND_ROW
    right = 60 if any((layout.get(name) or {}).get("overlaying") for name in _axis_names(layout)) else 20
    area = Box(60, legend_height + 34, width - 60 - right, height - 40 - legend_height - 34)
    whole = [trace for trace in traces if trace.get("type") == "icicle" or trace.get("orientation") == "h"]
    if whole:
        _draw_whole(drawing, whole[0], area, font)
    else:
        _draw_cartesian(drawing, traces, layout, area, font)
    _draw_legend(drawing, legend, width, legend_height, font)
    return drawing


def _draw_whole(drawing: Drawing, trace: Trace, area: Box, font: str) -> None:
    if trace.get("type") == "icicle":
        draw_icicle(drawing, trace, Box(0, area.y, area.x + area.width, area.height), font)
    else:
        draw_horizontal_bars(drawing, trace, Box(0, area.y, area.x + area.width, area.height), font)


def _draw_cartesian(drawing: Drawing, traces: list[Trace], layout: dict[str, Any], area: Box, font: str) -> None:
    """1. the x scale over every trace; 2. a panel per base y axis, by its domain; 3. in each, its axes' scales, grid,
    ticks and marks; 4. the x ticks and title under the lowest panel."""
    x_axis = layout.get("xaxis") or {}
    x = x_scale(traces, x_axis)
    draw_shapes(drawing, layout, area, x)
    draw_notes(drawing, layout, area, x, font)
    panels = _panels(traces, layout)
    for base, axes in panels.items():
        low, high = (layout.get(base) or {}).get("domain") or (0.0, 1.0)
        gap = PANEL_GAP if len(panels) > 1 else 0
        box = Box(area.x, area.y + low * area.height, area.width, (high - low) * area.height - gap)
        _draw_panel(drawing, axes, layout, box, x, font)
    _x_ticks(drawing, x, area, font)
    x_title = plain_text((x_axis.get("title") or {}).get("text", ""))
    drawing.add(String(area.x + area.width / 2, area.y - 26, x_title, fontName=font, fontSize=8, textAnchor="middle"))


def _draw_panel(
    drawing: Drawing, axes: dict[str, list[Trace]], layout: dict[str, Any], box: Box, x: XScale, font: str
) -> None:
    drawing.add(Rect(box.x, box.y, box.width, box.height, fillColor=None, strokeColor=GRID, strokeWidth=0.5))
    stacked_bars = layout.get("barmode") == "stack"
    for side, (name, traces) in enumerate(axes.items()):
        axis = layout.get(name) or {}
        stacked = any(trace.get("stackgroup") for trace in traces) or (
            stacked_bars and any(trace.get("type") == "bar" for trace in traces)
        )
        y = y_scale(traces, axis, stacked)
        _y_ticks(drawing, y, box, font, right=side > 0)
        _y_title(drawing, plain_text((axis.get("title") or {}).get("text", "")), box, font, right=side > 0)
        _draw_traces(drawing, traces, box, x, y, stacked_bars)


def _draw_traces(drawing: Drawing, traces: Sequence[Trace], box: Box, x: XScale, y: YScale, stacked_bars: bool) -> None:
    numbered = [(trace, trace_color(trace, number)) for number, trace in enumerate(traces)]
    bars = [(trace, color) for trace, color in numbered if trace.get("type") == "bar"]
    if bars:
        draw_bars(drawing, bars, box, x, y, stacked_bars)
    base: dict[str, float] = {}
    for trace, color in numbered:
        if trace.get("type", "scatter") != "scatter":
            continue
        if trace.get("stackgroup"):
            draw_area(drawing, trace, color, box, x, y, base)
        else:
            draw_scatter(drawing, trace, color, box, x, y)


def _axis_names(layout: dict[str, Any]) -> list[str]:
    return [name for name in layout if name.startswith("yaxis")]


def _panels(traces: Sequence[Trace], layout: dict[str, Any]) -> dict[str, dict[str, list[Trace]]]:
    """Base axis → {its axis and those overlaying it → their traces}, in the order traces name them."""
    panels: dict[str, dict[str, list[Trace]]] = {}
    for trace in traces:
        name = "yaxis" + str(trace.get("yaxis", "y"))[1:]
        overlaid = (layout.get(name) or {}).get("overlaying")
        base = "yaxis" + str(overlaid)[1:] if overlaid else name
        panels.setdefault(base, {}).setdefault(name, []).append(trace)
    for axes in panels.values():  # the base axis first: its ticks on the left
        axes_in_order = sorted(axes, key=lambda name: bool((layout.get(name) or {}).get("overlaying")))
        reordered = {name: axes[name] for name in axes_in_order}
        axes.clear()
        axes.update(reordered)
    return panels or {"yaxis": {"yaxis": []}}


def _y_ticks(drawing: Drawing, y: YScale, box: Box, font: str, *, right: bool) -> None:
    for tick, label in y.ticks():
        level = box.at(0, y.position(tick))[1]
        if not right:
            drawing.add(Line(box.x, level, box.x + box.width, level, strokeColor=GRID, strokeWidth=0.5))
        anchor_x, anchor = (box.x + box.width + 3, "start") if right else (box.x - 3, "end")
        drawing.add(String(anchor_x, level - 2.5, label, fontName=font, fontSize=7, textAnchor=anchor))


def _y_title(drawing: Drawing, title: str, box: Box, font: str, *, right: bool) -> None:
    text = String(0, 0, fitted(title, box.height, font, 8), fontName=font, fontSize=8, textAnchor="middle")
    middle = box.y + box.height / 2
    turn = (0, -1, 1, 0, box.x + box.width + 52, middle) if right else (0, 1, -1, 0, box.x - 44, middle)
    drawing.add(Group(text, transform=turn))


def _x_ticks(drawing: Drawing, x: XScale, area: Box, font: str) -> None:
    """The labels that fit: one whose place is too near the last one drawn is left out."""
    last = -1e9
    for tick, label in x.ticks:
        position = x.position(x.categories[int(tick)] if x.categories else tick)
        if position is None or not -0.001 <= position <= 1.001:
            continue
        place = area.at(position, 0)[0]
        text = fitted(label, 90, font, 7)
        if place - last < max(14, len(text) * 3.6):
            continue
        drawing.add(String(place, area.y - 10, text, fontName=font, fontSize=7, textAnchor="middle"))
        last = place


def _legend_entries(traces: Sequence[Trace]) -> list[tuple[str, str]]:
    return [
        (plain_text(trace["name"]), trace_color(trace, number))
        for number, trace in enumerate(traces)
        if trace.get("name") and trace.get("showlegend", True) and trace.get("type") != "icicle"
    ]


def _draw_legend(drawing: Drawing, entries: list[tuple[str, str]], width: float, height: float, font: str) -> None:
    column = (width - 60) / LEGEND_COLUMNS
    for number, (name, color) in enumerate(entries):
        left = 60 + (number % LEGEND_COLUMNS) * column
        top = height - (number // LEGEND_COLUMNS) * LEGEND_ROW
        drawing.add(Rect(left, top - 8, 10, 6, fillColor=paint(color), strokeColor=None))
        drawing.add(String(left + 14, top - 8, fitted(name, column - 18, font, 8), fontName=font, fontSize=8))
