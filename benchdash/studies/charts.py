"""Plotly figures of a study page, as plain dicts: pure functions from Points.

Built as dicts rather than plotly.graph_objects because validation costs milliseconds per figure
and a page draws one figure per scenario.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from html import escape

from django.utils.translation import gettext as _

from benchdash.inventory.models import version_sort_key
from benchdash.studies.results import Point

PALETTE = ["#1d4f91", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#e67700", "#5c940d"]


def tps_by_clients_figure(points: Iterable[Point], *, title: str = "") -> dict:
    """TPS vs clients: one line per build through the medians, min to max as asymmetric error bars."""
    by_build: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_build[point.build_id].append(point)
    ordered = sorted(
        by_build.values(), key=lambda group: (version_sort_key(group[0].build_version), group[0].build_name)
    )
    traces = [_build_trace(group, PALETTE[number % len(PALETTE)]) for number, group in enumerate(ordered)]
    return {"data": traces, "layout": tps_layout(title, clients=[x for trace in traces for x in trace["x"]])}


def tps_layout(title: str = "", *, clients: Iterable[int] = ()) -> dict:
    """Layout of a TPS-vs-clients chart; the x ticks are the client levels measured (plotly would print 0.5)."""
    levels = sorted(set(clients))
    return {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {
            "title": {"text": _("clients")},
            "rangemode": "tozero",
            "zeroline": False,
            **({"tickmode": "array", "tickvals": levels} if levels else {}),
        },
        "yaxis": {"title": {"text": _("TPS (median)")}, "rangemode": "tozero", "separatethousands": True},
        # Above the plot: below it, the legend collides with the x-axis title on small charts.
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "margin": {"l": 70, "r": 20, "t": 70 if title else 40, "b": 50},
        "hovermode": "closest",
        "separators": ".,",
    }


def _build_trace(group: list[Point], color: str) -> dict:
    group = sorted(group, key=lambda point: point.clients)
    first = group[0]
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": first.build_name,
        "x": [point.clients for point in group],
        "y": [round(point.median, 4) for point in group],
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [round(point.maximum - point.median, 4) for point in group],
            "arrayminus": [round(point.median - point.minimum, 4) for point in group],
            "thickness": 1.2,
            "width": 4,
        },
        "customdata": [[point.minimum, point.maximum, point.n] for point in group],
        "hovertemplate": _hover_template(first.build_name),
        "line": {"color": color},
        "marker": {"color": color, "size": 7},
    }


def _hover_template(build_name: str) -> str:
    return (
        f"<b>{escape(build_name)}</b><br>"
        + _("clients")
        + ": %{x}<br>"
        + _("median")
        + ": %{y:,.2f}<br>"
        + _("min")
        + " – "
        + _("max")
        + ": %{customdata[0]:,.2f} – %{customdata[1]:,.2f}<br>n = %{customdata[2]}<extra></extra>"
    )
