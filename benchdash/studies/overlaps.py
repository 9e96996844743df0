"""Which trials of a study ran at the same time: a study whose variants live on several DB hosts runs one trial per
host at once (the seeds' "two guests loaded at once"), and its page says which trials overlapped and for how long."""

from dataclasses import dataclass
from datetime import datetime

from benchdash.studies.models import Study, Trial


@dataclass(frozen=True)
class Overlap:
    """Two trials (on different DB hosts) that ran together for `seconds`."""

    first: Trial
    second: Trial
    seconds: float


def trial_overlaps(study: Study) -> list[Overlap]:
    """Every pair of the study's trials whose run times intersect, by start: one sweep over the trials in start
    order, keeping those still running."""
    trials = (
        study.trials.filter(started_at__isnull=False, finished_at__isnull=False, published=False)
        .select_related("host", "variant", "build")
        .order_by("started_at", "pk")
    )
    overlaps: list[Overlap] = []
    running: list[Trial] = []
    for trial in trials:
        started = _time(trial.started_at)
        running = [other for other in running if _time(other.finished_at) > started]
        overlaps += [Overlap(other, trial, _seconds_together(other, trial)) for other in running]
        running.append(trial)
    return overlaps


def _time(moment: datetime | None) -> datetime:
    assert moment is not None, "only trials with both times are swept"
    return moment


def _seconds_together(first: Trial, second: Trial) -> float:
    end = min(_time(first.finished_at), _time(second.finished_at))
    return round((end - _time(second.started_at)).total_seconds(), 1)
