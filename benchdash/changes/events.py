"""The events (annotations) around a change: which touch its series' chart, and which its card lists because their
range lies between the change's two sides (its versions, or a host series' two studies' days) on its host or on
every host."""

from __future__ import annotations

from collections.abc import Sequence

from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.inventory.events import EventMark, EventTouch, Place, event_marks, events_touching
from benchdash.inventory.models import version_sort_range
from benchdash.studies.event_places import study_day, study_host_ids, study_places, version_places
from benchdash.studies.models import Study


def change_events(change: ChangePoint, marks: Sequence[EventMark] | None = None) -> list[EventMark]:
    """The events the change's card lists: what may explain it."""
    hosts = _change_hosts(change)
    return [
        mark for mark in (event_marks() if marks is None else marks) if mark.holds_on(hosts) and _between(mark, change)
    ]


def series_events(change: ChangePoint, marks: Sequence[EventMark] | None = None) -> list[EventTouch]:
    """The events that touch the chart of the change's series, by its labels."""
    return events_touching(_series_places(change), marks)


def minor_series_events(study: Study) -> list[EventTouch]:
    """The events that touch a study's minor series: its builds' versions on its hosts."""
    versions = study.builds.values_list("version", flat=True)
    return events_touching(version_places(versions, study_host_ids([study.pk])))


def _between(mark: EventMark, change: ChangePoint) -> bool:
    if change.series_kind == SeriesKind.HOST:
        days = [study_day(study) for study in (change.before_study, change.after_study) if study is not None]
        known = [day for day in days if day is not None]
        return len(known) == 2 and mark.meets_dates(min(known), max(known))
    before = change.before_build.version if change.before_build else change.before_label
    after = change.after_build.version if change.after_build else change.after_label
    ends = [*version_sort_range(before), *version_sort_range(after)]
    return mark.meets_versions(min(ends), max(ends))


def _change_hosts(change: ChangePoint) -> frozenset[int]:
    return study_host_ids(pk for pk in (change.before_study_id, change.after_study_id) if pk is not None)


def _series_places(change: ChangePoint) -> dict[str, Place]:
    """A host series' labels are its studies (`#<id>`), each at its own place; any other's are versions."""
    labels = list(dict.fromkeys(change.series_labels))
    if change.series_kind != SeriesKind.HOST:
        return version_places(labels, _change_hosts(change))
    ids = {int(label[1:]): label for label in labels if label[1:].isdigit()}
    return {ids[pk]: place for pk, place in study_places(Study.objects.filter(pk__in=ids)).items()}
