"""Plotly figures of the evidence, as plain dicts: pure functions over evidence points and summaries.

Bars per build x clients use a two-level x axis (clients, then build), so builds stand side by side at
each client level. Every figure is drawn offline by a plotly.js bundle of static/vendor/ (deploy/plotly-bundles.txt).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from benchdash.studies.evidence.compare import EvidenceKey, EvidencePoint
from benchdash.studies.evidence.perf import FunctionChange
from benchdash.studies.results.charts import PALETTE
from benchdash.studies.results.tables import BuildColumn

CPU_COLORS = {"user": "#1d4f91", "system": "#d9480f", "iowait": "#e67700", "steal": "#c92a2a", "idle": "#ced4da"}
WAIT_EVENTS_DRAWN = 8
DIFFERENTIAL_EACH_SIDE = 12
GROWTH, SHRINK = "#c92a2a", "#2b8a3e"


def cpu_labels() -> dict[str, str]:
    return {
        "user": _("user"),
        "system": _("system"),
        "iowait": _("iowait"),
        "steal": _("steal"),
        "idle": _("idle"),
    }


def _layout(*, y_title: str, barmode: str | None = None, height: int = 380) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "margin": {"l": 70, "r": 20, "t": 40, "b": 80},
        "height": height,
        "hovermode": "closest",
        "separators": ".,",
    }
    if barmode:
        layout["barmode"] = barmode
    return layout


def _cells(
    points: Mapping[EvidenceKey, EvidencePoint], scenario_id: int, columns: Sequence[BuildColumn], levels: Sequence[int]
) -> list[tuple[int, BuildColumn, EvidencePoint | None]]:
    return [
        (clients, column, points.get((scenario_id, column.build_id, clients)))
        for clients in levels
        for column in columns
    ]


def _multicategory(cells: Sequence[tuple[int, BuildColumn, object]]) -> list[list[str]]:
    """Two-level x labels: the client level, then the build, by its version where that tells the builds apart
    (names like "PostgreSQL 15.20 installed" do not fit under a bar)."""
    columns = {column.build_id: column for _clients, column, _point in cells}
    versions = [column.version for column in columns.values()]
    short = len(set(versions)) == len(versions) and all(versions)
    return [
        [str(clients) for clients, _column, _point in cells],
        [column.version if short else column.name for _clients, column, _point in cells],
    ]


def cpu_breakdown_figure(
    points: Mapping[EvidenceKey, EvidencePoint], scenario_id: int, columns: Sequence[BuildColumn], levels: Sequence[int]
) -> dict[str, Any]:
    """Stacked bars of mean CPU user/system/iowait/steal/idle (%) per build x clients."""
    cells = _cells(points, scenario_id, columns, levels)
    x = _multicategory(cells)
    labels = cpu_labels()
    traces = [
        {
            "type": "bar",
            "name": labels[name],
            "x": x,
            "y": [_round(point.cpu.get(name)) if point else None for _c, _col, point in cells],
            "marker": {"color": CPU_COLORS[name]},
            "hovertemplate": f"{labels[name]}: %{{y:.1f}}%<extra>%{{x}}</extra>",
        }
        for name in CPU_COLORS
    ]
    layout = _layout(y_title=_("CPU (%)"), barmode="stack")
    layout["yaxis"]["range"] = [0, 100]
    layout["xaxis"] = {"title": {"text": _("clients / build")}}
    return {"data": traces, "layout": layout}


def cpu_per_transaction_figure(
    points: Mapping[EvidenceKey, EvidencePoint], scenario_id: int, columns: Sequence[BuildColumn], levels: Sequence[int]
) -> dict[str, Any]:
    """CPU milliseconds per transaction against clients, a line per build."""
    traces = []
    for number, column in enumerate(columns):
        cells = [(clients, points.get((scenario_id, column.build_id, clients))) for clients in levels]
        present = [(clients, point) for clients, point in cells if point and point.cpu_ms_per_transaction is not None]
        if not present:
            continue
        color = PALETTE[number % len(PALETTE)]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": column.name,
                "x": [clients for clients, _point in present],
                "y": [_round(point.cpu_ms_per_transaction, 4) for _clients, point in present],
                "line": {"color": color},
                "marker": {"color": color, "size": 7},
                "hovertemplate": f"{column.name}<br>%{{x}}: %{{y:.3f}} ms<extra></extra>",
            }
        )
    layout = _layout(y_title=_("CPU ms per transaction"), height=320)
    layout["xaxis"] = {"title": {"text": _("clients")}, "tickmode": "array", "tickvals": list(levels)}
    return {"data": traces, "layout": layout}


def wait_event_name(kind: str, event: str) -> str:
    if (kind, event) == ("CPU", "CPU"):
        return _("on CPU (no wait event)")
    return f"{kind}: {event}"


def wait_events_figure(
    points: Mapping[EvidenceKey, EvidencePoint], scenario_id: int, columns: Sequence[BuildColumn], levels: Sequence[int]
) -> dict[str, Any]:
    """Stacked bars: each wait event's share of the sampled active backends per build x clients; the
    WAIT_EVENTS_DRAWN most frequent events of the scenario are drawn, the rest is "other"."""
    cells = _cells(points, scenario_id, columns, levels)
    overall: Counter[tuple[str, str]] = Counter()
    for _clients, _column, point in cells:
        if point:
            overall.update(point.wait_shares())
    drawn = [event for event, _share in overall.most_common(WAIT_EVENTS_DRAWN)]
    x = _multicategory(cells)
    shares = [point.wait_shares() if point and point.wait_samples else None for _c, _col, point in cells]
    traces = []
    for number, event in enumerate(drawn):
        name = wait_event_name(*event)
        traces.append(_share_bar(name, x, [_pct(s.get(event, 0.0)) if s else None for s in shares], number))
    if len(overall) > len(drawn):
        other = [_pct(sum(v for e, v in s.items() if e not in drawn)) if s else None for s in shares]
        traces.append(_share_bar(_("other"), x, other, None))
    layout = _layout(y_title=_("share of sampled active backends (%)"), barmode="stack")
    layout["yaxis"]["range"] = [0, 100]
    layout["xaxis"] = {"title": {"text": _("clients / build")}}
    return {"data": traces, "layout": layout}


def _share_bar(name: str, x: list[list[str]], y: list[float | None], number: int | None) -> dict[str, Any]:
    color = "#adb5bd" if number is None else PALETTE[number % len(PALETTE)]
    return {
        "type": "bar",
        "name": name,
        "x": x,
        "y": y,
        "marker": {"color": color},
        "hovertemplate": f"{name}: %{{y:.1f}}%<extra>%{{x}}</extra>",
    }


def flame_figure(flame: Mapping[str, list]) -> dict[str, Any]:
    """The call tree as an icicle (a flame graph upside down: callers above callees), widths in samples."""
    labels, parents, values = flame.get("labels", []), flame.get("parents", []), flame.get("values", [])
    ids = [str(index) for index in range(len(labels))]
    total = values[0] if values else 0
    trace = {
        "type": "icicle",
        "ids": ids,
        "labels": labels,
        "parents": ["" if parent < 0 else str(parent) for parent in parents],
        "values": values,
        "branchvalues": "total",
        "maxdepth": 12,
        "tiling": {"orientation": "v"},
        "textinfo": "label",
        "customdata": [round(100.0 * value / total, 2) if total else 0 for value in values],
        "hovertemplate": "%{label}<br>%{value} " + _("samples") + " (%{customdata}%)<extra></extra>",
    }
    return {"data": [trace], "layout": {"margin": {"l": 5, "r": 5, "t": 30, "b": 5}, "height": 520}}


def perf_differential_figure(changes: Sequence[FunctionChange], baseline: str, other: str) -> dict[str, Any]:
    """Horizontal bars of the change in self share (percentage points) from the baseline build to another:
    the largest growth on top (red), the largest shrink at the bottom (green)."""
    grown = [change for change in changes if change.change > 0][:DIFFERENTIAL_EACH_SIDE]
    shrunk = [change for change in changes if change.change < 0][-DIFFERENTIAL_EACH_SIDE:]
    shown = grown + shrunk
    trace = {
        "type": "bar",
        "orientation": "h",
        "x": [round(100.0 * change.change, 3) for change in shown],
        "y": [change.function for change in shown],
        "marker": {"color": [GROWTH if change.change > 0 else SHRINK for change in shown]},
        "customdata": [[round(100 * c.baseline_share, 2), round(100 * c.other_share, 2)] for c in shown],
        "hovertemplate": (
            "%{y}<br>"
            + f"{baseline}: %{{customdata[0]}}% → {other}: %{{customdata[1]}}%"
            + "<br>%{x:+.2f} pt<extra></extra>"
        ),
    }
    layout = _layout(y_title="", height=max(300, 26 * len(shown) + 90))
    layout["yaxis"] = {"autorange": "reversed", "automargin": True}
    layout["xaxis"] = {"title": {"text": _("change in share of samples (percentage points)")}, "zeroline": True}
    layout["margin"] = {"l": 10, "r": 20, "t": 30, "b": 60}
    layout["showlegend"] = False
    return {"data": [trace], "layout": layout}


def trial_timeline_figure(series: Mapping[str, Any]) -> dict[str, Any]:
    """The trial's seconds on one x axis, four panels: TPS and latency; CPU; disk; memory and active backends."""
    traces: list[dict[str, Any]] = []
    progress = series.get("progress") or {}
    if progress:
        traces.append(_line(progress["t"], progress["tps"], "TPS", PALETTE[0], "y"))
        traces.append(_line(progress["t"], progress["latency_ms"], _("latency (ms)"), PALETTE[1], "y2", dash="dot"))
    sar = series.get("sar") or {}
    if sar:
        labels = cpu_labels()
        for name, color in CPU_COLORS.items():
            trace = _line(sar["t"], sar["cpu"].get(name, []), labels[name], color, "y3")
            trace.update({"stackgroup": "cpu", "mode": "none"})
            traces.append(trace)
        device = sar.get("disk_device") or _("disk")
        traces.append(_line(sar["t"], sar["disk_util_percent"], f"{device} %util", PALETTE[2], "y4"))
        traces.append(_line(sar["t"], sar["disk_await_ms"], f"{device} await (ms)", PALETTE[3], "y5", dash="dot"))
        traces.append(_line(sar["t"], sar["memory_used_percent"], _("memory used (%)"), PALETTE[5], "y6"))
    waits = series.get("waits") or {}
    for number, (kind, counts) in enumerate(sorted(waits.get("by_type", {}).items())):
        name = _("on CPU") if kind == "CPU" else kind
        traces.append(_line(waits["t"], counts, name, PALETTE[(number + 4) % len(PALETTE)], "y7", dash="dash"))
    return {"data": traces, "layout": _timeline_layout()}


def _line(x: list, y: list, name: str, color: str, axis: str, dash: str = "solid") -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": x,
        "y": y,
        "yaxis": axis,
        "line": {"color": color, "width": 1.6, "dash": dash},
        "fillcolor": color,
    }


def _timeline_layout() -> dict[str, Any]:
    def axis(title: str, domain: list[float], **extra: Any) -> dict[str, Any]:
        return {"title": {"text": title, "font": {"size": 11}}, "domain": domain, "rangemode": "tozero", **extra}

    return {
        "height": 760,
        "margin": {"l": 70, "r": 70, "t": 40, "b": 50},
        "hovermode": "x unified",
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "xaxis": {"title": {"text": _("seconds since the run started")}, "anchor": "y6"},
        "yaxis": axis("TPS", [0.78, 1.0]),
        "yaxis2": axis(_("latency (ms)"), [0.78, 1.0], overlaying="y", side="right"),
        "yaxis3": axis(_("CPU (%)"), [0.53, 0.75], range=[0, 100]),
        "yaxis4": axis(_("disk %util"), [0.28, 0.5], range=[0, 100]),
        "yaxis5": axis(_("await (ms)"), [0.28, 0.5], overlaying="y4", side="right"),
        "yaxis6": axis(_("memory (%)"), [0.0, 0.25], range=[0, 100]),
        "yaxis7": axis(_("active backends"), [0.0, 0.25], overlaying="y6", side="right"),
    }


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def _pct(share: float) -> float:
    return round(100.0 * share, 2)
