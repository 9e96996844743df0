"""Which events (annotations) touch a chart or may explain a change: a pure rule over plain places, and the one query.

A chart says where each of its categories stands (a `Place`: its hosts, versions and days); an event touches a
category when it holds on one of the category's hosts (or on every host), and each of its ranges that the place can
be measured on (versions, days) contains one of the place's values, at least one range being measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from benchdash.inventory.models import Event, version_sort_key


@dataclass(frozen=True)
class Place:
    """Where a chart's category (or a whole chart) stands."""

    host_ids: frozenset[int] = frozenset()
    versions: tuple[str, ...] = ()
    days: tuple[date, ...] = ()


@dataclass(frozen=True)
class EventMark:
    """An event as the charts and cards read it: its text, link, host and both ranges (version_sort ends)."""

    pk: int
    text: str
    link: str = ""
    host_id: int | None = None
    date_from: date | None = None
    date_to: date | None = None
    version_low: int | None = None
    version_high: int | None = None
    scope: str = ""

    @classmethod
    def of(cls, event: Event) -> EventMark:
        return cls(
            event.pk,
            event.text,
            # A row written past the admin's check (a shell, a fixture) never puts another scheme in a page.
            event.link if event.link.startswith(("http://", "https://")) else "",
            event.host_id,
            event.date_from,
            event.date_to,
            event.version_low,
            event.version_high,
            event.scope(),
        )

    @property
    def has_versions(self) -> bool:
        return self.version_low is not None or self.version_high is not None

    @property
    def has_dates(self) -> bool:
        return self.date_from is not None or self.date_to is not None

    def holds_on(self, host_ids: Iterable[int | None]) -> bool:
        return self.host_id is None or self.host_id in set(host_ids)

    def touches(self, place: Place) -> bool:
        checks = []
        if self.has_versions and place.versions:
            checks.append(
                any(_within(version_sort_key(v), self.version_low, self.version_high) for v in place.versions)
            )
        if self.has_dates and place.days:
            checks.append(any(_within(day, self.date_from, self.date_to) for day in place.days))
        return self.holds_on(place.host_ids) and bool(checks) and all(checks)

    def meets_versions(self, low: int, high: int) -> bool:
        """The version range meets [low, high] (a change's two sides)."""
        return self.has_versions and _meets(self.version_low, self.version_high, low, high)

    def meets_dates(self, low: date, high: date) -> bool:
        return self.has_dates and _meets(self.date_from, self.date_to, low, high)


@dataclass(frozen=True)
class EventTouch:
    """An event and the labels of the chart's categories it touches."""

    mark: EventMark
    labels: tuple[str, ...]


def _within(value: Any, low: Any, high: Any) -> bool:
    return (low is None or low <= value) and (high is None or value <= high)


def _meets(start: Any, end: Any, low: Any, high: Any) -> bool:
    return (start is None or start <= high) and (end is None or low <= end)


def event_marks() -> list[EventMark]:
    return [EventMark.of(event) for event in Event.objects.select_related("host")]


def events_touching(places: Mapping[str, Place], marks: Iterable[EventMark] | None = None) -> list[EventTouch]:
    """Every event that touches one of the chart's categories (label -> place), with the labels it touches."""
    touches = []
    for mark in event_marks() if marks is None else marks:
        labels = tuple(label for label, place in places.items() if mark.touches(place))
        if labels:
            touches.append(EventTouch(mark, labels))
    return touches
