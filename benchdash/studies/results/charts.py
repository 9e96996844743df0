"""Plotly figures of a study page, as plain dicts: pure functions from Points.

Built as dicts rather than plotly.graph_objects because validation costs milliseconds per figure
and a page draws one figure per scenario.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from html import escape

from django.utils.translation import gettext as _

from benchdash.inventory.event_drawing import add_event_notes
from benchdash.inventory.events import EventTouch
from benchdash.inventory.models import version_sort_key
from benchdash.studies.models import Statistic
from benchdash.studies.results.compare import Point
from benchdash.studies.results.tables import level_order

PALETTE = ["#1d4f91", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#e67700", "#5c940d"]


def statistic_axis_title(statistic: str) -> str:
    """The y axis says what the figures are: a measured study's medians, or a published study's statistic."""
    titles: dict[str, str] = {
        Statistic.MEDIAN: _("TPS (median)"),
        Statistic.MEAN: _("TPS (mean)"),
        Statistic.RELATIVE: _("relative (baseline = 100)"),
        Statistic.PEAK: _("TPS (peak)"),
        Statistic.SINGLE: _("TPS (single run)"),
        Statistic.UNSTATED: _("TPS (statistic unstated)"),
    }
    return titles.get(statistic, _("TPS"))


def tps_by_clients_figure(
    points: Iterable[Point],
    *,
    title: str = "",
    statistic: str = Statistic.MEDIAN,
    ranges: bool = True,
    ordered: bool = False,
    events: Sequence[EventTouch] = (),
) -> dict:
    """TPS vs clients: one line per build (or variant) through its figures, by version then name, or with
    `ordered` in the order of the points; with `ranges`, min to max as asymmetric error bars where they are
    known (a published figure has none); the events that touch the study as notes above the plot."""
    points = list(points)
    by_build: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_build[point.build_id].append(point)
    groups = list(by_build.values())
    if not ordered:
        groups.sort(key=lambda group: (version_sort_key(group[0].build_version), group[0].label))
    value_name = str(Statistic(statistic).label) if statistic in Statistic.values else _("figure")
    traces = [
        _build_trace(group, PALETTE[number % len(PALETTE)], value_name, ranges=ranges)
        for number, group in enumerate(groups)
    ]
    layout = tps_layout(title, levels=[point.level for point in points])
    layout["yaxis"]["title"]["text"] = statistic_axis_title(statistic)
    return {"data": traces, "layout": add_event_notes(layout, events)}


def level_label(level: tuple[int, str]) -> str:
    """'10 · -t 100' for a figure with conditions (a long one on a second line); the client count alone otherwise."""
    clients, conditions = level
    if not conditions:
        return str(clients)
    return f"{clients}<br>{escape(conditions)}" if len(conditions) > 12 else f"{clients} · {escape(conditions)}"


def x_values(levels: Sequence[tuple[int, str]]) -> list[int | str]:
    """Client counts on a numeric axis; where any figure carries conditions, one category per level."""
    if any(conditions for _clients, conditions in levels):
        return [level_label(level) for level in levels]
    return [clients for clients, _conditions in levels]


def tps_layout(title: str = "", *, levels: Iterable[tuple[int, str]] = ()) -> dict:
    """Layout of a TPS-vs-clients chart; the x ticks are the client levels measured (plotly would print 0.5),
    or, where figures carry conditions, a category per client level and conditions."""
    ordered = sorted(set(levels), key=level_order)
    if any(conditions for _clients, conditions in ordered):
        xaxis: dict[str, object] = {
            "title": {"text": _("clients · conditions")},
            "type": "category",
            "categoryorder": "array",
            "categoryarray": x_values(ordered),
        }
    else:
        ticks = x_values(ordered)
        xaxis = {
            "title": {"text": _("clients")},
            "rangemode": "tozero",
            "zeroline": False,
            **({"tickmode": "array", "tickvals": ticks} if ticks else {}),
        }
    return {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": xaxis,
        "yaxis": {"title": {"text": _("TPS (median)")}, "rangemode": "tozero", "separatethousands": True},
        # Above the plot: below it, the legend collides with the x-axis title on small charts.
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "margin": {"l": 70, "r": 20, "t": 70 if title else 40, "b": 50},
        "hovermode": "closest",
        "separators": ".,",
    }


def _build_trace(group: list[Point], color: str, value_name: str, *, ranges: bool) -> dict:
    group = sorted(group, key=lambda point: level_order(point.level))
    first = group[0]
    trace = {
        "type": "scatter",
        "mode": "lines+markers",
        "name": first.label,
        "x": x_values([point.level for point in group]),
        "y": [round(point.figure, 4) for point in group],
        "hovertext": [_hover_text(point, value_name) for point in group],
        "hoverinfo": "text",
        "line": {"color": color},
        "marker": {"color": color, "size": 7},
    }
    if ranges and any(point.minimum is not None and point.maximum is not None for point in group):
        trace["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": [_gap(point.maximum, point.figure) for point in group],
            "arrayminus": [_gap(point.figure, point.minimum) for point in group],
            "thickness": 1.2,
            "width": 4,
        }
    return trace


def _gap(high: float | None, low: float | None) -> float | None:
    return None if high is None or low is None else round(high - low, 4)


def _hover_text(point: Point, value_name: str) -> str:
    lines = [
        f"<b>{escape(point.label)}</b>",
        _("clients") + f": {point.clients}" + (f" ({escape(point.conditions)})" if point.conditions else ""),
        f"{escape(value_name)}: {point.figure:,.2f}",
    ]
    if point.minimum is not None and point.maximum is not None:
        lines.append(_("min") + " – " + _("max") + f": {point.minimum:,.2f} – {point.maximum:,.2f}")
    lines.append("n = " + ("—" if point.n is None else str(point.n)))
    return "<br>".join(lines)
