"""Marking a study official or not, and what follows: its scenarios' change points are recomputed once it commits
(its figures join or leave the trends' index, and its own series' changes join or leave the feed)."""

from typing import Any

from django.db import transaction

from benchdash.studies.lifecycle.signals import send_series_changed_after_commit
from benchdash.studies.models import Study


def study_mark_official(study: Study, official: bool, *, by: Any = None, reason: str = "") -> bool:
    """Study.mark_official (False, and nothing changes, while the study runs), then series_changed after commit."""
    with transaction.atomic():
        marked = study.mark_official(official, by=by, reason=reason)
        if marked:
            scenario_ids = study.scenarios.values_list("pk", flat=True)
            send_series_changed_after_commit(scenario_ids, study_id=study.pk if official else None)
    return marked
