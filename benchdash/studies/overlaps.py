"""Which trials of a study ran at the same time: a study whose variants live on several DB hosts runs one trial per
host at once (the seeds' "two guests loaded at once"), and its page says which trials overlapped and for how long."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from benchdash.studies.models import Study, Trial


@dataclass(frozen=True)
class TrialRun:
    """When one trial ran, where, and what it measured (its order, variant label and DB host)."""

    position: int | None
    label: str
    host: str
    started_at: datetime
    finished_at: datetime


@dataclass(frozen=True)
class Overlap:
    """Two trials (on different DB hosts) that ran together for `seconds`."""

    first: TrialRun
    second: TrialRun
    seconds: float


def trial_overlaps(study: Study) -> list[Overlap]:
    """Every pair of the study's trials whose run times intersect: one sweep over the trials in start order, keeping
    those still running. A study on one DB host runs one trial at a time: nothing to look for."""
    hosts = {host_id or study.db_host_id for host_id in study.variants.values_list("db_host_id", flat=True)}
    if len(hosts) < 2:  # read from the few variants, not from the trials
        return []
    trials = study.trials.filter(started_at__isnull=False, finished_at__isnull=False, published=False)
    overlaps: list[Overlap] = []
    running: list[TrialRun] = []
    for trial in _runs(trials):
        running = [other for other in running if other.finished_at > trial.started_at]
        overlaps += [Overlap(other, trial, _seconds_together(other, trial)) for other in running]
        running.append(trial)
    return overlaps


def _runs(trials: QuerySet[Trial]) -> list[TrialRun]:
    rows = trials.order_by("started_at", "pk").values_list(
        "position", "variant__label", "build__name", "host__name", "started_at", "finished_at"
    )
    return [
        TrialRun(position, label or build, host or "", started, finished)
        for position, label, build, host, started, finished in rows
        if started is not None and finished is not None  # as filtered: says so to the type checker
    ]


def _seconds_together(first: TrialRun, second: TrialRun) -> float:
    return round((min(first.finished_at, second.finished_at) - second.started_at).total_seconds(), 1)
