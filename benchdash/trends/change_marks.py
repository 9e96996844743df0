"""The change points marked on the trends' index chart, asked for with a signal: the changes app reads the trends,
never the reverse, so it answers `change_marks_wanted` (benchdash/changes/apps.py); with no answer, no marks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.dispatch import Signal

# Sent with scenario_id; a receiver answers with the ChangeMarks of that scenario's index.
change_marks_wanted = Signal()


@dataclass(frozen=True)
class ChangeMark:
    """A change in a scenario's index: the versions it lies between, its size (mean after / before - 1), its
    confidence (1 - p)."""

    before_label: str
    after_label: str
    size: float
    confidence: float


def size_percent(size: float) -> str:
    return f"{100 * size:+.1f}%"


def confidence_percent(confidence: float) -> str:
    return f"{100 * confidence:.2f}%" if confidence < 0.9999 else "> 99.99%"


def change_marks(scenario_id: int) -> list[ChangeMark]:
    """Every answer to change_marks_wanted for the scenario, in one list."""
    answers = change_marks_wanted.send(sender=ChangeMark, scenario_id=scenario_id)
    return [mark for _receiver, marks in answers for mark in cast("list[ChangeMark]", marks)]
