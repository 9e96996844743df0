"""Plotly figures of the trends page, as plain dicts: pure functions from the index and the studies' points."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from django.utils.translation import gettext as _

from benchdash.inventory.event_drawing import add_event_bands
from benchdash.inventory.events import EventTouch
from benchdash.inventory.models import version_sort_key
from benchdash.studies.models import Statistic
from benchdash.studies.results.charts import PALETTE, tps_by_clients_figure
from benchdash.studies.results.compare import Point
from benchdash.trends.change_marks import ChangeMark, confidence_percent, size_percent
from benchdash.trends.index import INDEX_START, IndexPoint

UP, DOWN = "#2b8a3e", "#c92a2a"


@dataclass(frozen=True)
class MatrixTrace:
    """A version matrix's own line beside the index: its label and (major, value) in version order."""

    label: str
    values: list[tuple[str, float]]


def index_figure(
    points: Sequence[IndexPoint],
    *,
    title: str = "",
    matrices: Sequence[MatrixTrace] = (),
    changes: Sequence[ChangeMark] = (),
    events: Sequence[EventTouch] = (),
) -> dict:
    """The chained version index: one line per segment, so the line breaks where no study links two versions;
    and each official version matrix as one dashed line of its own; a dashed vertical line before each change's
    version, with its size and confidence above it and in the hover of a triangle on its point.

    x is categorical in version order; each point's hover names the study that measured the link reaching it. The
    events that touch it are shaded bands over their versions.
    """
    segments: dict[int, list[IndexPoint]] = defaultdict(list)
    for point in points:
        segments[point.segment].append(point)
    traces = [_segment_trace(number, segment) for number, segment in sorted(segments.items())]
    traces += [_matrix_trace(number, matrix) for number, matrix in enumerate(matrices, start=len(segments) + 1)]
    matrix_versions = {version for matrix in matrices for version, _value in matrix.values}
    versions = sorted({point.version for point in points} | matrix_versions, key=version_sort_key)
    marked = [change for change in changes if change.after_label in versions]
    if marked:
        traces.append(_changes_trace(marked, {point.version: point.index for point in points}))
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {
            "title": {"text": _("PostgreSQL version")},
            "type": "category",
            "categoryorder": "array",
            "categoryarray": versions,
        },
        # From 0, with a dotted line at 100: a 2.7% drop must look like one, not like a cliff.
        "yaxis": {"title": {"text": _("index (oldest version = 100)")}, "rangemode": "tozero"},
        "shapes": [
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": INDEX_START,
                "y1": INDEX_START,
                "line": {"color": "#adb5bd", "width": 1, "dash": "dot"},
            },
            *(change_line(versions.index(change.after_label), change.size) for change in marked),
        ],
        "showlegend": len(segments) + len(matrices) > 1,
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "margin": {"l": 70, "r": 20, "t": 70 if title else 40, "b": 50},
        "annotations": [
            *(
                _break_annotation(segment[0], versions.index(segment[0].version))
                for _number, segment in sorted(segments.items())[1:]
            ),
            *(_change_note(versions.index(change.after_label), change) for change in marked),
        ],
        "hovermode": "closest",
    }
    return {"data": traces, "layout": add_event_bands(layout, events, versions)}


def study_curves_figure(
    points: Iterable[Point], *, title: str = "", statistic: str = Statistic.MEDIAN, events: Sequence[EventTouch] = ()
) -> dict:
    """One study's TPS-vs-clients curves: one line per version, through its figures (no ranges: a small chart)."""
    return tps_by_clients_figure(points, title=title, statistic=statistic, ranges=False, events=events)


def _segment_trace(number: int, segment: list[IndexPoint]) -> dict:
    color = PALETTE[(number - 1) % len(PALETTE)]
    return {
        "type": "scatter",
        "mode": "lines+markers+text",
        "name": _("segment %(number)d") % {"number": number},
        "x": [point.version for point in segment],
        "y": [round(point.index, 2) for point in segment],
        "text": [f"{point.index:.1f}" for point in segment],
        "textposition": "top center",
        "hovertext": [_point_hover(point) for point in segment],
        "hoverinfo": "text",
        "error_y": _interval_bars(segment, color),
        "line": {"color": color, "width": 2.5},
        # An open marker: the link reaching the point comes from a study below the rules (Study.official_reason).
        "marker": {"color": color, "size": 9, "symbol": [_marker_symbol(point) for point in segment]},
    }


def _interval_bars(segment: list[IndexPoint], color: str) -> dict:
    """Each point's interval as an error bar (none where a link on the way has no runs: a published figure)."""
    above = [None if point.interval is None else round(point.interval[1] - point.index, 2) for point in segment]
    below = [None if point.interval is None else round(point.index - point.interval[0], 2) for point in segment]
    return {"type": "data", "symmetric": False, "array": above, "arrayminus": below, "color": color, "width": 4}


def _marker_symbol(point: IndexPoint) -> str:
    return "circle-open" if point.link and point.link.study.official_reason else "circle"


def _matrix_trace(number: int, matrix: MatrixTrace) -> dict:
    color = PALETTE[(number - 1) % len(PALETTE)]
    name = _("version matrix: %(study)s") % {"study": matrix.label}
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": name,
        "x": [version for version, _value in matrix.values],
        "y": [round(value, 2) for _version, value in matrix.values],
        "hovertext": [
            f"<b>PostgreSQL {escape(version)}</b>: {value:.1f}<br>{escape(name)}" for version, value in matrix.values
        ],
        "hoverinfo": "text",
        "line": {"color": color, "width": 2, "dash": "dash"},
        "marker": {"color": color, "size": 7, "symbol": "diamond"},
    }


def _point_hover(point: IndexPoint) -> str:
    head = f"<b>PostgreSQL {escape(point.version)}</b>: {point.index:.1f}"
    if point.link is None:
        return head + "<br>" + _("start of the line (= 100)")
    if point.interval is None:
        head += "<br>" + _("no interval: a link on the way has no runs (published figures)")
    else:
        head += "<br>" + _("interval %(low)s – %(high)s") % {
            "low": f"{point.interval[0]:.1f}",
            "high": f"{point.interval[1]:.1f}",
        }
    link = point.link
    builds = f" ({escape(link.older_build)} → {escape(link.newer_build)})" if link.older_build else ""
    lines = [
        head,
        f"{escape(link.older_version)} → {escape(link.newer_version)}: × {link.ratio:.3f}{builds}",
        _("measured by") + f": {escape(link.study.label)}",
    ]
    if link.study.official_reason:
        reason = escape(link.study.official_reason)
        lines.append(_("below the rules for an official study: %(reason)s") % {"reason": reason})
    if point.backward:
        lines.append(_("reached from the newer %(version)s") % {"version": escape(point.reached_from or "")})
    lines += [
        _("also measured by") + f": {escape(other.study.label)} (× {other.ratio:.3f})" for other in point.other_links
    ]
    return "<br>".join(lines)


def _break_annotation(first: IndexPoint, position: int) -> dict:
    # By category position: plotly reads a category name such as "9.4" as a number.
    text = _("restarts at 100: no official study measured both %(older)s and %(newer)s") % {
        "older": escape(first.gap_from or "—"),
        "newer": escape(first.version),
    }
    return {
        "x": position,
        "y": first.index,
        "text": text,
        "showarrow": True,
        "arrowhead": 0,
        "ax": 0,
        "ay": 40,
        "font": {"size": 11, "color": "#616e7c"},
    }


def change_line(position: int, size: float, dash: str = "dash") -> dict:
    """A vertical line half a category before `position` (between the change's label and the one before), green
    for a rise, red for a fall. By category position: plotly reads a category name such as "9.4" as a number."""
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": position - 0.5,
        "x1": position - 0.5,
        "y0": 0,
        "y1": 1,
        "line": {"color": UP if size > 0 else DOWN, "width": 2, "dash": dash},
    }


def _change_note(position: int, change: ChangeMark) -> dict:
    return {
        "x": position - 0.5,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "yanchor": "bottom",
        "showarrow": False,
        "text": f"{size_percent(change.size)} ({confidence_percent(change.confidence)})",
        "font": {"size": 11, "color": UP if change.size > 0 else DOWN},
    }


def _changes_trace(marked: Sequence[ChangeMark], indexed: dict[str, float]) -> dict:
    """A triangle on each change's version whose hover names the change; at the chart's top where the index has no
    point of that version (a version matrix's own)."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": _("change points"),
        "x": [change.after_label for change in marked],
        "y": [round(indexed.get(change.after_label, INDEX_START), 2) for change in marked],
        "hovertext": [_change_hover(change) for change in marked],
        "hoverinfo": "text",
        "marker": {
            "size": 14,
            "symbol": ["triangle-up-open" if change.size > 0 else "triangle-down-open" for change in marked],
            "color": [UP if change.size > 0 else DOWN for change in marked],
            "line": {"width": 2},
        },
        "showlegend": False,
    }


def _change_hover(change: ChangeMark) -> str:
    return _("change %(before)s → %(after)s: %(size)s, confidence %(confidence)s") % {
        "before": escape(change.before_label),
        "after": escape(change.after_label),
        "size": size_percent(change.size),
        "confidence": confidence_percent(change.confidence),
    }
