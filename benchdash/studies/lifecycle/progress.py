"""How far a study has come: the numbers behind the live panel and `queue_study --wait`.

A trial has *finished* when it succeeded or failed; a study has *ended* when it is done, failed or cancelled.
"""

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from benchdash.inventory.models import Host
from benchdash.studies.lifecycle.plan import estimate_seconds
from benchdash.studies.models import Study, Trial


@dataclass(frozen=True)
class CurrentTrial:
    trial_id: int
    position: int | None  # None only for a published figure, which never runs
    build: str
    scenario: str
    clients: int
    repetition: int | None
    attempt: int
    started_at: datetime | None


@dataclass(frozen=True)
class HostWait:
    """An attempt of the study waits for this host, unreachable since then (workers/host_wait.py); or, with
    busy_with, the study's next trial waits for the host, which runs a trial of that other installation since then
    (workers/host_lock.py)."""

    host: str
    since: datetime
    busy_with: str = ""


@dataclass(frozen=True)
class StudyProgress:
    study_id: int
    status: str
    status_label: str
    total: int
    finished: int
    succeeded: int
    failed: int
    cancelled: int
    pending: int
    percent: float
    elapsed_s: float | None
    remaining_s: float | None
    current: CurrentTrial | None
    most_trials: int | None = None  # adaptive repetitions: the trials if every cell runs to the cap
    waiting: tuple[HostWait, ...] = ()
    failure_reason: str = ""

    @property
    def ended(self) -> bool:
        """The study is done, failed or cancelled: nothing of it will run any more."""
        return self.status not in (Study.Status.DRAFT, Study.Status.QUEUED, Study.Status.RUNNING)

    @property
    def settled(self) -> bool:
        """Ended, and no trial of it still running: a cancelled study's last trial stops a little after the study,
        and the live panel follows it until then."""
        return self.ended and self.current is None

    @property
    def results_key(self) -> str:
        """Changes whenever the results shown under the live panel change: the page re-fetches them then."""
        return f"{self.finished}/{self.failed}/{self.cancelled}/{self.status}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ended"] = self.ended
        data["settled"] = self.settled
        data["results_key"] = self.results_key
        if self.current and self.current.started_at:
            data["current"]["started_at"] = self.current.started_at.isoformat()
        data["waiting"] = [asdict(wait) | {"since": wait.since.isoformat()} for wait in self.waiting]
        return data


def study_progress(study: Study) -> StudyProgress:
    counts = _status_counts(study)
    total = sum(counts.values())
    finished = counts[Trial.Status.SUCCEEDED] + counts[Trial.Status.FAILED]
    elapsed = _elapsed_s(study)
    return StudyProgress(
        study_id=study.pk,
        status=study.status,
        status_label=str(study.get_status_display()),
        total=total,
        finished=finished,
        succeeded=counts[Trial.Status.SUCCEEDED],
        failed=counts[Trial.Status.FAILED],
        cancelled=counts[Trial.Status.CANCELLED],
        pending=counts[Trial.Status.PENDING],
        percent=round(100.0 * finished / total, 1) if total else 0.0,
        elapsed_s=elapsed,
        remaining_s=_remaining_s(study, finished, elapsed, counts),
        current=_current_trial(study),
        most_trials=study.most_trials,
        waiting=_host_waits(study),
        failure_reason=_failure_reason(study),
    )


def _host_waits(study: Study) -> tuple[HostWait, ...]:
    """The study's hosts that do not answer, while one of its own trials runs (and so waits for them): its DB host,
    its pgbench host and the DB host of each running trial (a host variant's: the second system of a dual-boot server
    that a study run one host after another waits for). A note that another study's attempt left is not this study's
    business."""
    if study.status not in (Study.Status.QUEUED, Study.Status.RUNNING):
        return ()
    running = study.trials.filter(status=Trial.Status.RUNNING)
    if not running.exists():
        return _installation_waits(study)
    trial_hosts = Host.objects.filter(pk__in=running.values("host_id"))
    hosts = {host for host in (study.db_host, study.client_host, *trial_hosts) if host is not None}
    waits = (HostWait(host.name, host.unreachable_since) for host in hosts if host.unreachable_since)
    return tuple(sorted(waits, key=lambda wait: wait.host))


def _installation_waits(study: Study) -> tuple[HostWait, ...]:
    """While none of its trials runs: the study's DB host, if another installation's trial holds it (its lock)."""
    db_host = study.db_host
    if db_host is None or not db_host.busy_with or db_host.busy_since is None:
        return ()
    return (HostWait(db_host.name, db_host.busy_since, db_host.busy_with),)


def _failure_reason(study: Study) -> str:
    """Why a failed study failed: the failure kind of its trial that failed last, in the reader's language, with the
    engine's error beside it as the detail."""
    if study.status != Study.Status.FAILED:
        return ""
    failed = study.trials.filter(status=Trial.Status.FAILED).exclude(error="").order_by("-finished_at", "-pk").first()
    if failed is None:
        return ""
    if not failed.failure_kind:
        return failed.error
    return _("%(kind)s. Detail: %(detail)s") % {"kind": failed.get_failure_kind_display(), "detail": failed.error}


def _status_counts(study: Study) -> dict[str, int]:
    aggregates = {status: Count("pk", filter=Q(status=status)) for status in Trial.Status.values}
    return study.trials.filter(published=False).aggregate(**aggregates)


def _elapsed_s(study: Study) -> float | None:
    if study.started_at is None:
        return None
    end = study.finished_at or timezone.now()
    return max(0.0, (end - study.started_at).total_seconds())


def _remaining_s(study: Study, finished: int, elapsed: float | None, counts: dict[str, int]) -> float | None:
    """From the pace so far once a trial finished; from the plan's estimate before that."""
    left = counts[Trial.Status.PENDING] + counts[Trial.Status.RUNNING]
    if study.status not in (Study.Status.QUEUED, Study.Status.RUNNING):
        return 0.0
    if finished and elapsed:
        return elapsed / finished * left
    pending = study.trials.filter(status__in=(Trial.Status.PENDING, Trial.Status.RUNNING))
    planned = [trial for trial in pending.only("reset_data")]
    return estimate_seconds(planned, duration_s=study.duration_s, scale=study.scale)  # type: ignore[arg-type]


def _current_trial(study: Study) -> CurrentTrial | None:
    trial = (
        study.trials.filter(status=Trial.Status.RUNNING)
        .select_related("build", "scenario")
        .order_by("position")
        .first()
    )
    if trial is None:
        return None
    return CurrentTrial(
        trial_id=trial.pk,
        position=trial.position,
        build=trial.build.name,
        scenario=trial.scenario.slug,
        clients=trial.clients,
        repetition=trial.repetition,
        attempt=trial.attempts,
        started_at=trial.started_at,
    )
