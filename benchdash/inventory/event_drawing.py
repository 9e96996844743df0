"""How a chart draws the events that touch it, as plotly shapes and annotations: a shaded band over the touched
categories of a categorical axis with a short label above it, or, on a chart without such an axis (a study's TPS
by clients), a note above the plot. The hover of the label holds the whole text and the link."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from django.utils.translation import gettext as _

from benchdash.inventory.events import EventMark, EventTouch

BAND_COLOR = "rgba(250, 176, 5, 0.18)"
LABEL_COLOR = "#8f5b00"
SHORT = 24
ROW_PX = 16
NOTE_PX = 24


def add_event_bands(layout: dict, touches: Sequence[EventTouch], categories: Sequence[str]) -> dict:
    """The layout with one band per run of adjacent touched categories of each event, labelled at the top."""
    for row, touch in enumerate(touches):
        for first, last in _runs([categories.index(label) for label in touch.labels if label in categories]):
            layout.setdefault("shapes", []).append(_band(first, last))
            layout.setdefault("annotations", []).append(_label(touch.mark, (first + last) / 2, row))
    return _room_above(layout, len(touches))


def add_event_notes(layout: dict, touches: Sequence[EventTouch]) -> dict:
    """The layout with each event as a line of note above the plot (a study's charts, touched as a whole)."""
    for row, touch in enumerate(touches):
        # Above the legend, which sits just above the plot.
        note = _label(touch.mark, 0, row) | {"xref": "paper", "xanchor": "left", "yshift": NOTE_PX + ROW_PX * row}
        note["text"] = escape(_("annotation")) + ": " + _short(touch.mark.text, 80)
        layout.setdefault("annotations", []).append(note)
    return _room_above(layout, len(touches), NOTE_PX if touches else 0)


def event_hover(mark: EventMark) -> str:
    return escape(mark.text) + (f"<br>{escape(mark.link)}" if mark.link else "")


def _band(first: int, last: int) -> dict:
    # By category position: plotly reads a category name such as "9.4" as a number.
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": first - 0.5,
        "x1": last + 0.5,
        "y0": 0,
        "y1": 1,
        "fillcolor": BAND_COLOR,
        "line": {"width": 0},
        "layer": "below",
    }


def _label(mark: EventMark, x: float, row: int) -> dict:
    text = _short(mark.text, SHORT)
    return {
        "x": x,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "yanchor": "bottom",
        "yshift": ROW_PX * row,
        "showarrow": False,
        "text": f'<a href="{escape(mark.link)}">{text}</a>' if mark.link else text,
        "hovertext": event_hover(mark),
        "font": {"size": 11, "color": LABEL_COLOR},
    }


def _short(text: str, length: int) -> str:
    return escape(text if len(text) <= length else text[: length - 1] + "…")


def _runs(positions: list[int]) -> list[tuple[int, int]]:
    """[1, 2, 3, 6] -> [(1, 3), (6, 6)]."""
    runs: list[tuple[int, int]] = []
    for position in sorted(set(positions)):
        if runs and runs[-1][1] == position - 1:
            runs[-1] = (runs[-1][0], position)
        else:
            runs.append((position, position))
    return runs


def _room_above(layout: dict, rows: int, extra: int = 0) -> dict:
    if rows:
        margin = layout.setdefault("margin", {})
        margin["t"] = margin.get("t", 40) + ROW_PX * rows + extra
    return layout
