"""Where a study stands for the events (annotations) that may touch its charts: its DB hosts, its builds' versions
and the day it ran (inventory/events.py says which events touch a place)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from benchdash.inventory.events import EventMark, EventTouch, Place, events_touching
from benchdash.studies.models import Study, Variant

WHOLE_STUDY = ""


def study_day(study: Study) -> date | None:
    """The day a measured study started (or was made); a published study's figures carry no day benchdash knows."""
    if study.kind == Study.Kind.PUBLISHED:
        return None
    return (study.started_at or study.created_at).date()


def study_host_ids(study_ids: Iterable[int]) -> frozenset[int]:
    """Every DB host of the studies: each one's own and its variants'."""
    study_ids = list(study_ids)
    own = Study.objects.filter(pk__in=study_ids).values_list("db_host_id", flat=True)
    variants = Variant.objects.filter(study_id__in=study_ids).values_list("db_host_id", flat=True)
    return frozenset(host for host in (*own, *variants) if host is not None)


def study_place(study: Study) -> Place:
    day = study_day(study)
    versions = tuple(study.builds.values_list("version", flat=True))
    return Place(study_host_ids([study.pk]), versions, (day,) if day else ())


def study_events(study: Study, marks: Sequence[EventMark] | None = None) -> list[EventTouch]:
    """The events that touch a study's charts: on its host or every host, by its day or its builds' versions."""
    return events_touching({WHOLE_STUDY: study_place(study)}, marks)


def version_places(versions: Iterable[str], host_ids: frozenset[int]) -> dict[str, Place]:
    """A version axis' categories: each version on the chart's hosts."""
    return {version: Place(host_ids, (version,)) for version in versions}
