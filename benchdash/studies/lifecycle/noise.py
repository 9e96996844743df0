"""The noise check of a study's DB hosts (workers/preflight.py): run on each host before its first trial of the
study, and kept with the study and on the host; the host page runs it on demand. The study runs whatever the
verdict says.

The study's own DB host keeps its check in Study.noise_check; each other host a variant names (a study on two hosts
at once) in Study.host_noise_checks, by the host's id.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.models import Study, Trial


def study_needs_noise_check(trial: Trial) -> bool:
    """Whether the trial's DB host has not had its noise check for the trial's study yet."""
    study = Study.objects.only("db_host_id", "noise_check", "host_noise_checks").get(pk=trial.study_id)
    return not _kept_check(study, trial.host_id)


def noise_check_keep(*, report: dict[str, Any], host_id: int | None, study_id: int | None = None) -> None:
    """Keep a check's report on its host (the latest) and, before a study, with the study under that host."""
    checked = report | {"checked_at": timezone.now().isoformat()}
    if host_id is not None:
        Host.objects.filter(pk=host_id).update(noise_check=checked, noise_checked_at=timezone.now())
    if study_id is None:
        return
    with transaction.atomic():  # two hosts' first trials may keep theirs at once
        study = Study.objects.select_for_update().only("db_host_id", "host_noise_checks").get(pk=study_id)
        if _is_study_host(study, host_id):
            study.noise_check = checked
            study.save(update_fields=["noise_check"])
        else:
            study.host_noise_checks = study.host_noise_checks | {str(host_id): checked}
            study.save(update_fields=["host_noise_checks"])


def study_noise_checks(study: Study) -> list[tuple[Host | None, dict[str, Any]]]:
    """Each DB host of the study with its check (empty until it ran): the study's own host first, then the other
    hosts its variants name, by name."""
    others = Host.objects.filter(db_variants__study=study).distinct().order_by("name")
    if study.db_host_id is not None:
        others = others.exclude(pk=study.db_host_id)
    return [(study.db_host, study.noise_check)] + [(host, _kept_check(study, host.pk)) for host in others]


def _kept_check(study: Study, host_id: int | None) -> dict[str, Any]:
    if _is_study_host(study, host_id):
        return study.noise_check
    return study.host_noise_checks.get(str(host_id), {})


def _is_study_host(study: Study, host_id: int | None) -> bool:
    return host_id is None or host_id == study.db_host_id
