"""Where a study stands for the events (annotations) that may touch its charts: its DB hosts, its builds' versions
and the day it ran (inventory/events.py says which events touch a place)."""

from __future__ import annotations

from collections import defaultdict
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


def study_places(studies: Iterable[Study]) -> dict[int, Place]:
    """Each study's place by its id, in two queries whatever their number (the trends page draws dozens)."""
    studies = list(studies)
    hosts: dict[int, set[int]] = defaultdict(set)
    variants = Variant.objects.filter(study__in=studies).values_list("study_id", "db_host_id")
    for study_id, host_id in (*variants, *((study.pk, study.db_host_id) for study in studies)):
        if host_id is not None:
            hosts[study_id].add(host_id)
    versions: dict[int, list[str]] = defaultdict(list)
    for study_id, version in Study.builds.through.objects.filter(study__in=studies).values_list(
        "study_id", "build__version"
    ):
        versions[study_id].append(version)
    return {study.pk: _place(study, hosts[study.pk], versions[study.pk]) for study in studies}


def _place(study: Study, hosts: set[int], versions: list[str]) -> Place:
    day = study_day(study)
    return Place(frozenset(hosts), tuple(sorted(versions)), (day,) if day else ())


def study_place(study: Study) -> Place:
    return study_places([study])[study.pk]


def study_events(
    study: Study, marks: Sequence[EventMark] | None = None, place: Place | None = None
) -> list[EventTouch]:
    """The events that touch a study's charts: on its host or every host, by its day or its builds' versions."""
    return events_touching({WHOLE_STUDY: place or study_place(study)}, marks)


def version_places(versions: Iterable[str], host_ids: frozenset[int]) -> dict[str, Place]:
    """A version axis' categories: each version on the chart's hosts."""
    return {version: Place(host_ids, (version,)) for version in versions}
