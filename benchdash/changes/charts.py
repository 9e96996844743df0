"""Plotly figures of the changes pages, as plain dicts: pure functions.

`series_figure` draws one series (every value under its label) with a dashed line where each change lies;
`minor_series_figure` draws a minor series' TPS per minor, one line per client level, with the interval of each
minor's ratio to the baseline put on the TPS scale (baseline median x the interval's ends).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from benchdash.inventory.event_drawing import add_event_bands
from benchdash.inventory.events import EventTouch
from benchdash.inventory.models import version_sort_key
from benchdash.studies.models import Statistic
from benchdash.studies.results.charts import PALETTE, statistic_axis_title
from benchdash.studies.results.compare import Point
from benchdash.trends.change_marks import confidence_percent, size_percent
from benchdash.trends.charts import DOWN, UP, change_line


@dataclass(frozen=True)
class Marked:
    """A change to mark: the label it lies before, its size (mean after / before - 1), whether it is new, its
    confidence (1 - p) where known."""

    after_label: str
    size: float
    new: bool = True
    confidence: float | None = None


def series_figure(
    labels: Sequence[str],
    values: Sequence[float],
    changes: Iterable[Marked],
    *,
    y_title: str,
    events: Sequence[EventTouch] = (),
) -> dict:
    trace = {"type": "scatter", "mode": "markers", "x": list(labels), "y": [round(value, 3) for value in values]}
    return {"data": [trace], "layout": _layout(list(dict.fromkeys(labels)), changes, y_title=y_title, events=events)}


def _layout(
    categories: list[str],
    changes: Iterable[Marked],
    *,
    y_title: str,
    legend: bool = False,
    events: Sequence[EventTouch] = (),
) -> dict:
    """Categories in the order given, a dashed line (dotted once acknowledged) before each change's label; changes
    at one label (a minor series' client levels) share the line, their sizes stacked in its note; the events that
    touch the chart as bands over their categories."""
    marked = [change for change in changes if change.after_label in categories]
    at_label: dict[str, list[Marked]] = defaultdict(list)
    for change in marked:
        at_label[change.after_label].append(change)
    layout = {
        "height": 420 if legend else 300,
        "margin": {
            "l": 60,
            "r": 20,
            "t": 30 + 14 * max((len(group) for group in at_label.values()), default=0),
            "b": 60,
        },
        "xaxis": {"type": "category", "categoryorder": "array", "categoryarray": categories},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "showlegend": legend,
        "shapes": [
            change_line(categories.index(change.after_label), change.size, "dash" if change.new else "dot")
            for change in marked
        ],
        "annotations": [
            _change_note(categories.index(label), change, stacked)
            for label, group in at_label.items()
            for stacked, change in enumerate(group)
        ],
    }
    return add_event_bands(layout, events, categories)


def _change_note(position: int, change: Marked, stacked: int = 0) -> dict:
    return {
        "x": position - 0.5,
        "y": 1,
        "yshift": 14 * stacked,
        "xref": "x",
        "yref": "paper",
        "yanchor": "bottom",
        "showarrow": False,
        "text": size_percent(change.size) + _confidence_text(change),
        "font": {"color": UP if change.size > 0 else DOWN},
    }


def _confidence_text(change: Marked) -> str:
    return "" if change.confidence is None else f" ({confidence_percent(change.confidence)})"


def minor_series_figure(
    points: Iterable[Point],
    baseline_build_id: int | None,
    changes: Iterable[Marked],
    events: Sequence[EventTouch] = (),
) -> dict:
    """TPS per minor (x, in version order), one line per client level, with the intervals described above."""
    by_level: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_level[point.clients].append(point)
    traces = [
        _level_trace(clients, sorted(group, key=_version_order), baseline_build_id, PALETTE[number % len(PALETTE)])
        for number, (clients, group) in enumerate(sorted(by_level.items()))
    ]
    versions = sorted({point.build_version for group in by_level.values() for point in group}, key=version_sort_key)
    statistic = next((group[0].statistic for group in by_level.values()), Statistic.MEDIAN)
    layout = _layout(versions, changes, y_title=statistic_axis_title(statistic), legend=True, events=events)
    return {"data": traces, "layout": layout}


def _version_order(point: Point) -> tuple[int, str]:
    return (version_sort_key(point.build_version), point.build_name)


def _level_trace(clients: int, points: list[Point], baseline_build_id: int | None, color: str) -> dict:
    baseline = next((point.figure for point in points if point.build_id == baseline_build_id), None)
    plus, minus = [], []
    for point in points:
        interval = point.interval
        low, high = (interval.low, interval.high) if interval and baseline else (None, None)
        plus.append(None if high is None or baseline is None else round(baseline * high - point.figure, 2))
        minus.append(None if low is None or baseline is None else round(point.figure - baseline * low, 2))
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": _("%(clients)s clients") % {"clients": clients},
        "x": [point.build_version for point in points],
        "y": [round(point.figure, 2) for point in points],
        "error_y": {"type": "data", "array": plus, "arrayminus": minus, "visible": True},
        "line": {"color": color},
    }
