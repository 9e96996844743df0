"""Recomputing the change points of every series, and keeping the stored ones in step (`changes_refresh`).

A change still found keeps its row, its first-found time and its acknowledgement (its figures are updated); a
change no longer found is removed; a new one is added. Called when a study ends (study_ended, after commit,
like the other post-commit refreshes) and by `manage.py refresh_changes`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from benchdash.changes.detection import Change, find_changes
from benchdash.changes.models import ChangePoint
from benchdash.changes.queries import all_series
from benchdash.changes.series import Series, Side
from benchdash.inventory.models import Build

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Found:
    series: Series
    change: Change


def detect(series: Iterable[Series]) -> list[Found]:
    """The change points of every series (pure)."""
    return [Found(one, change) for one in series for change in find_changes(one.values, one.labels)]


def changes_refresh() -> int:
    """Recompute and store every series' change points; returns how many there are now."""
    found = detect(all_series())
    builds = _builds_by_study_and_version(found)
    with transaction.atomic():
        kept = [_store(item, builds).pk for item in found]
        ChangePoint.objects.exclude(pk__in=kept).delete()
    return len(kept)


def refresh_after_study_end(sender: Any, study_id: int, **kwargs: Any) -> None:
    """The receiver of study_ended: a failed refresh is logged and never spoils the study's end."""
    try:
        changes_refresh()
    except Exception:  # noqa: BLE001 (Signal.send would skip the receivers after this one: the queue's clean-up)
        logger.exception("change points were not refreshed after study %s ended", study_id)


def _store(item: Found, builds: dict[tuple[int, str], int]) -> ChangePoint:
    series, change = item.series, item.change
    before, after = series.sides_at(change.index)
    change_point, _created = ChangePoint.objects.update_or_create(
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
    return change_point


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
