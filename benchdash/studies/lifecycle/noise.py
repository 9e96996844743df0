"""The noise check of a study's DB host (workers/preflight.py): run once, before its first trial, and kept with the
study and on the host; the host page runs it on demand. The study runs whatever the verdict says."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.models import Study, Trial


def study_needs_noise_check(trial: Trial) -> bool:
    """Whether the trial's study has not had its noise check yet (its first claimed trial runs it)."""
    return Study.objects.filter(pk=trial.study_id, noise_check={}).exists()


def noise_check_keep(*, report: dict[str, Any], host_id: int | None, study_id: int | None = None) -> None:
    """Keep a check's report on its host (the latest) and, before a study, on the study."""
    checked = report | {"checked_at": timezone.now().isoformat()}
    if host_id is not None:
        Host.objects.filter(pk=host_id).update(noise_check=checked, noise_checked_at=timezone.now())
    if study_id is not None:
        Study.objects.filter(pk=study_id).update(noise_check=checked)
