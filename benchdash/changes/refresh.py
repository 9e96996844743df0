"""Recomputing the change points of every series, and keeping the stored ones in step (`changes_refresh`).

A change still found keeps its row, its first-found time and its acknowledgement (its figures are updated); a
change no longer found is removed; a new one is added. Run by the queue's task `changes_refresh` whenever a series
changes (a study ends, published results are imported, a study is marked official or not: benchdash/queue/
changes.py) and by `manage.py refresh_changes`. One refresh at a time (a transaction-level advisory lock, taken
before reading): a refresh that read the series before another change committed could otherwise commit after the
refresh that change sent, and leave the change out until the next one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import partial

from django.db import connection, transaction

from benchdash.changes.detection import Change, find_changes
from benchdash.changes.models import ChangePoint
from benchdash.changes.queries import all_series
from benchdash.changes.series import Series, Side
from benchdash.changes.signals import changes_found
from benchdash.inventory.models import Build


@dataclass(frozen=True)
class Found:
    series: Series
    change: Change


def detect(series: Iterable[Series]) -> list[Found]:
    """The change points of every series (pure)."""
    return [Found(one, change) for one in series for change in find_changes(one.values, one.labels)]


# The key of the advisory lock that makes refreshes take turns (any constant no other lock of the store uses).
REFRESH_LOCK = 4_300_005


def changes_refresh(scenario_ids: Collection[int] | None = None) -> int:
    """Recompute and store the change points of the series of `scenario_ids` (None: every series); returns how many
    changes those series have now. The new ones are announced after commit (changes_found)."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [REFRESH_LOCK])
        series = [one for one in all_series() if scenario_ids is None or one.scenario_id in scenario_ids]
        found = detect(series)
        builds = _builds_by_study_and_version(found)
        stored_now = [_store(item, builds) for item in found]
        kept = [change.pk for change, _created in stored_now]
        stored = ChangePoint.objects.all()
        if scenario_ids is not None:
            stored = stored.filter(scenario_id__in=scenario_ids)
        stored.exclude(pk__in=kept).delete()
        new = [change.pk for change, created in stored_now if created]
        if new:
            transaction.on_commit(partial(changes_found.send, sender=ChangePoint, change_ids=new))
    return len(kept)


def _store(item: Found, builds: dict[tuple[int, str], int]) -> tuple[ChangePoint, bool]:
    series, change = item.series, item.change
    before, after = series.sides_at(change.index)
    return ChangePoint.objects.update_or_create(
        series_key=series.key,
        before_label=change.before_label,
        after_label=change.after_label,
        defaults={
            "series_kind": series.kind,
            "series_title": series.title[:400],
            "official": series.official,
            "scenario_id": series.scenario_id,
            "clients": series.clients,
            "before_study_id": before.study_id,
            "after_study_id": after.study_id,
            "before_build_id": _build_id(before, builds),
            "after_build_id": _build_id(after, builds),
            "mean_before": change.mean_before,
            "mean_after": change.mean_after,
            "size": change.size,
            "pvalue": change.pvalue,
            "series_labels": series.labels,
            "series_values": series.values,
            "index": change.index,
        },
    )


def _build_id(side: Side, builds: dict[tuple[int, str], int]) -> int | None:
    if side.build_id is not None or side.study_id is None:
        return side.build_id
    return builds.get((side.study_id, side.build_version))


def _builds_by_study_and_version(found: Iterable[Found]) -> dict[tuple[int, str], int]:
    """(study, version) -> build, for the sides known by version only (trend links)."""
    study_ids = {
        side.study_id
        for item in found
        for side in item.series.sides_at(item.change.index)
        if side.build_id is None and side.study_id is not None
    }
    rows = Build.objects.filter(studies__in=study_ids).values_list("studies", "version", "pk")
    return {(study_id, version): build_id for study_id, version, build_id in rows}
