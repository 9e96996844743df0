"""Study workflows over several models: create, queue, claim, finish, cancel, retry, put back.

The state machines are drawn on Study, Trial and Attempt (models.py). A trial is claimed with one
conditional UPDATE of its own row (... WHERE status = 'pending') that did or did not change it, and the
partial unique constraint trial_one_running_per_host keeps each DB host to one running trial: the
database, not the broker, decides who runs what. Every claim opens an Attempt; only the current one
(same attempt number, still running) may write the trial. Tasks are sent only after the transaction
that made them commits, and a broker that cannot take one leaves the trial for beat to send.
"""

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, TextField, Value
from django.db.models.functions import Concat, Now
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.adaptive import study_extend
from benchdash.studies.artifact_files import StoredFile, artifact_orphans_remove, attempt_files_write, files_delete
from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Artifact, Attempt, Study, Trial
from benchdash.studies.plan import plan_design
from benchdash.studies.results.store import points_refresh
from benchdash.studies.results.uncertainty import DEFAULT_THRESHOLD
from benchdash.studies.signals import send_trial_after_commit
from workers.spec import RunOrder, TrialOutcome

ACTIVE = (Study.Status.QUEUED, Study.Status.RUNNING)
FINISHED_TRIALS = (Trial.Status.SUCCEEDED, Trial.Status.FAILED)
RETRY_COUNTDOWN_S = 5


class HostBusy(Exception):
    """Another trial is running on this trial's DB host."""


@transaction.atomic
def study_create(*, data: Mapping[str, Any], created_by: Any = None) -> Study:
    """Save a study from StudyForm.cleaned_data and expand it into its planned trials (status draft)."""
    study = Study.objects.create(
        title=data["title"],
        year=data["year"],
        db_host=data["db_host"],
        client_host=data.get("client_host") or data["db_host"],
        baseline=data["baseline"],
        client_levels=data["client_levels"],
        repetitions=data["repetitions"],
        duration_s=data["duration_s"],
        scale=data["scale"],
        fillfactor=data.get("fillfactor"),
        pg_settings=data.get("pg_settings") or {},
        collect_sar=data.get("collect_sar", False),
        collect_perf=data.get("collect_perf", False),
        collect_wait_events=data.get("collect_wait_events", False),
        threshold=data.get("threshold", DEFAULT_THRESHOLD),
        max_repetitions=data.get("max_repetitions"),
        seed=data["seed"],
        run_order=data.get("run_order") or RunOrder.RANDOM,
        created_by=created_by if getattr(created_by, "pk", None) else None,
    )
    study.builds.set(data["builds"])
    study.scenarios.set(data["scenarios"])
    study.add_planned_trials(plan_design(data))
    return study


class Queued(StrEnum):
    """What study_enqueue did."""

    SENT = "sent"  # queued, and the broker took its first trial's task
    WAITING_FOR_BROKER = "waiting"  # queued; the broker was unreachable, beat sends the task once it answers
    UNCHANGED = "unchanged"  # not a draft: nothing done


def study_enqueue(*, study: Study) -> Queued:
    """DRAFT -> QUEUED, and send the task of its first trial once this commits.

    The study is queued whether or not the broker answers: it is in the store, and beat sends it later.
    """
    sent: list[bool] = []
    with transaction.atomic():
        changed = Study.objects.filter(pk=study.pk, status=Study.Status.DRAFT).update(status=Study.Status.QUEUED)
        if changed:
            _send_next_trial(study.pk, report=sent.append)
    study.refresh_from_db(fields=["status"])
    if not changed:
        return Queued.UNCHANGED
    # Nothing reported: an outer transaction has not committed yet, so nothing was tried.
    return Queued.WAITING_FOR_BROKER if False in sent else Queued.SENT


def study_cancel(*, study: Study) -> bool:
    """QUEUED | RUNNING -> CANCELLED. Pending trials are cancelled; the running one stops through the
    runner's should_cancel, which reads the study's status; finished trials stay."""
    with transaction.atomic():
        changed = Study.objects.filter(pk=study.pk, status__in=ACTIVE).update(
            status=Study.Status.CANCELLED, finished_at=timezone.now()
        )
        if changed:
            study.trials.filter(status=Trial.Status.PENDING).update(status=Trial.Status.CANCELLED)
    study.refresh_from_db(fields=["status", "finished_at"])
    return bool(changed)


def study_retry_failed(*, study: Study) -> int:
    """Put the failed trials back (fresh attempts) and queue the study again; returns how many."""
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        count = locked.trials.filter(status=Trial.Status.FAILED).update(
            status=Trial.Status.PENDING, attempts=0, error="", finished_at=None
        )
        if count and locked.status not in ACTIVE:
            Study.objects.filter(pk=study.pk).update(status=Study.Status.QUEUED, finished_at=None)
            _send_next_trial(study.pk)
    study.refresh_from_db(fields=["status", "finished_at"])
    return count


def study_is_cancelled(*, study_id: int) -> bool:
    return Study.objects.filter(pk=study_id, status=Study.Status.CANCELLED).exists()


def trial_claim(*, trial_id: int, worker: str) -> Trial | None:
    """PENDING -> RUNNING for this trial if its study is active and it has attempts left, opening its
    Attempt; None when someone else has it, it is no longer pending (a duplicate message) or it has no
    attempt left. Raises HostBusy when its DB host runs another trial.

    One UPDATE of the trial's own row, its conditions in its own WHERE clause: a claim that waited for a
    concurrent one re-checks `status = 'pending'` on the row that one left, finds it running, and changes
    nothing. (A filter through a join would make Django write `WHERE id IN (SELECT ...)`, and only that
    would be re-checked: then both claims won.) The study is checked with EXISTS on its own row.
    """
    now = timezone.now()
    claimable = Trial.objects.filter(
        _study_is(*ACTIVE), pk=trial_id, status=Trial.Status.PENDING, attempts__lt=settings.TRIAL_MAX_ATTEMPTS
    )
    try:
        with transaction.atomic():
            changed = claimable.update(
                status=Trial.Status.RUNNING,
                attempts=F("attempts") + 1,
                worker=worker[:200],
                started_at=now,
                heartbeat_at=now,
                finished_at=None,
            )
            if changed:
                trial = Trial.objects.select_related("study").get(pk=trial_id)
                # Not `now`: the UPDATE may have waited on trial_one_running_per_host for the host's previous
                # trial to end, and the attempt starts only once it has, after that one's end time.
                trial.started_at = timezone.now()
                Trial.objects.filter(pk=trial_id).update(started_at=trial.started_at)
                Attempt.objects.create(
                    trial=trial, number=trial.attempts, worker=worker[:200], started_at=trial.started_at
                )
    except IntegrityError:
        raise HostBusy(trial_id) from None
    if not changed:
        return None
    Study.objects.filter(pk=trial.study_id, status=Study.Status.QUEUED).update(status=Study.Status.RUNNING)
    Study.objects.filter(pk=trial.study_id, started_at__isnull=True).update(started_at=now)
    return trial


def _study_is(*statuses: str) -> Exists:
    """The trial's study has one of these statuses, as a condition on the trial's own row. An UPDATE
    filtered so stays one statement on the trial table, which re-checks the trial's status after a
    concurrent change; a filter through the join (study__status) would not (see trial_claim)."""
    return Exists(Study.objects.filter(pk=OuterRef("study_id"), status__in=statuses))


def trial_touch(*, trial_id: int) -> None:
    """Mark a pending trial as having a task on its way, so beat does not send another."""
    Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=timezone.now())


def attempt_is_current(*, trial_id: int, attempt: int) -> bool:
    """Whether this attempt may go on: its trial still runs as this attempt, in an active study.
    False once the study was cancelled, or beat put the trial back (a later attempt may run it now)."""
    return Trial.objects.filter(
        pk=trial_id, status=Trial.Status.RUNNING, attempts=attempt, study__status__in=ACTIVE
    ).exists()


def trial_heartbeat(*, trial_id: int, attempt: int) -> bool:
    """Say that this attempt still runs; False when it is no longer the trial's current attempt (refused)."""
    current = Trial.objects.filter(pk=trial_id, status=Trial.Status.RUNNING, attempts=attempt)
    return bool(current.update(heartbeat_at=timezone.now()))


def trial_finish(*, trial: Trial, outcome: TrialOutcome) -> Trial:
    """RUNNING -> SUCCEEDED | FAILED | CANCELLED, or back to PENDING while attempts remain.

    Only the attempt that is still current may store its outcome, artifacts and host facts (same attempt,
    still running), so a run that beat already put back is never stored twice. Either way its Attempt
    is closed with the time its worker was done with it. No file or network I/O happens inside the transaction
    that holds the trial's row lock:
    1. the attempt's files are written under names of its own (nothing refers to them yet);
    2. one transaction: the trial's state and outcome, its artifact rows (replacing an earlier attempt's), the
       attempt closed, the trial marked as having outputs due;
    3. after commit: the replaced files removed, then points and evidence refreshed (trial_outputs_refresh).
    A crash after 1 leaves files no row names, after 2 a trial whose outputs are due: beat repairs both
    (trials_outputs_repair), so nothing is lost and nothing is left behind.
    """
    written = attempt_files_write(trial_id=trial.pk, attempt=trial.attempts, artifacts=outcome.artifacts)
    with transaction.atomic():
        locked, replaced = _outcome_commit(trial, outcome, written)
    if locked is None:  # a later attempt, or beat, has the trial: what this attempt wrote is not kept
        files_delete(stored.name for stored in written.values())
        return Trial.objects.get(pk=trial.pk)
    files_delete(replaced)
    trial_outputs_refresh(locked, artifacts=outcome.artifacts)
    return locked


def _outcome_commit(
    trial: Trial, outcome: TrialOutcome, written: Mapping[str, StoredFile]
) -> tuple[Trial | None, list[str]]:
    """Step 2 of trial_finish: the locked trial (None when this attempt is no longer current) and the names of the
    files its new artifact rows replaced."""
    current = Trial.objects.select_for_update().filter(
        pk=trial.pk, status=Trial.Status.RUNNING, attempts=trial.attempts
    )
    locked = current.select_related("study").first()
    if locked is None:
        _close_attempt(trial, Attempt.Result.STALE, outcome.error)
        return None, []
    locked.status = _finished_status(locked, outcome)
    _copy_outcome(locked, outcome)
    locked.finished_at = timezone.now() if locked.status != Trial.Status.PENDING else None
    locked.save()
    Trial.objects.filter(pk=locked.pk).update(outputs_due_at=Now())
    if outcome.host_unreachable:  # the next trials would wait for the same host: the study stops, saying why
        Study.objects.filter(pk=locked.study_id, status__in=ACTIVE).update(
            status=Study.Status.FAILED, finished_at=locked.finished_at
        )
    _close_attempt(locked, ATTEMPT_RESULT[locked.status], outcome.error)
    replaced = _artifact_rows_replace(locked, written)
    # Facts reused from earlier in the study (no "facts" phase) are already on the host.
    if outcome.host_facts and "facts" in outcome.timings and locked.host_id:
        facts = {name: value for name, value in outcome.host_facts.items() if name != "client_host"}
        Host.objects.filter(pk=locked.host_id).update(facts=facts, facts_updated_at=timezone.now())
    return locked, replaced


def _artifact_rows_replace(trial: Trial, written: Mapping[str, StoredFile]) -> list[str]:
    """Point the trial's rows at the files just written; returns the names of the files they pointed at before."""
    old = trial.artifacts.filter(kind__in=list(written))
    new_names = {stored.name for stored in written.values()}
    replaced = [name for name in old.values_list("file", flat=True) if name not in new_names]
    old.delete()
    Artifact.objects.bulk_create(
        Artifact(trial=trial, kind=kind, file=stored.name, size=stored.size) for kind, stored in written.items()
    )
    return replaced


def trial_outputs_refresh(trial: Trial, *, artifacts: Mapping[str, bytes] | None = None) -> None:
    """Step 3 of trial_finish, and beat's repair: no file without its row, the trial's point (a running trial counted
    nowhere; only a success moves one) and its evidence. Idempotent: running it again changes nothing more.

    artifacts: the outcome's files as the worker has them; None reads the stored ones."""
    artifact_orphans_remove(trial)
    if trial.status == Trial.Status.SUCCEEDED:
        points_refresh(
            study_id=trial.study_id, build_id=trial.build_id, scenario_id=trial.scenario_id, clients=trial.clients
        )
    evidence_refresh(trial=trial, artifacts=artifacts)
    Trial.objects.filter(pk=trial.pk).update(outputs_due_at=None)


# How long a trial's outputs may stay due before beat takes them for a crash's leftovers: its worker refreshes them
# right after commit.
OUTPUTS_REPAIR_AFTER = timedelta(seconds=60)


def trials_outputs_repair() -> list[int]:
    """Beat: finish step 3 of trial_finish for trials whose worker died before it (or that lost their attempt)."""
    due = Trial.objects.filter(outputs_due_at__lt=Now() - OUTPUTS_REPAIR_AFTER).exclude(status=Trial.Status.RUNNING)
    repaired = []
    for trial in due.select_related("study"):
        trial_outputs_refresh(trial)
        repaired.append(trial.pk)
    return repaired


ATTEMPT_RESULT: dict[str, str] = {
    Trial.Status.SUCCEEDED: Attempt.Result.SUCCEEDED,
    Trial.Status.FAILED: Attempt.Result.FAILED,
    Trial.Status.PENDING: Attempt.Result.RETRIED,
    Trial.Status.CANCELLED: Attempt.Result.CANCELLED,
}


def _close_attempt(trial: Trial, result: str, error: str) -> None:
    """A lost attempt whose worker comes back after all keeps "lost" and gets its end time."""
    attempt = Attempt.objects.latest_of(trial.pk, trial.attempts).filter(finished_at__isnull=True)
    attempt.filter(result=Attempt.Result.RUNNING).update(result=result)
    attempt.update(finished_at=timezone.now(), error=error)


def _finished_status(trial: Trial, outcome: TrialOutcome) -> str:
    if trial.study.status == Study.Status.CANCELLED:
        return Trial.Status.CANCELLED
    if outcome.ok:
        return Trial.Status.SUCCEEDED
    if trial.attempts < settings.TRIAL_MAX_ATTEMPTS and not outcome.host_unreachable:
        return Trial.Status.PENDING
    return Trial.Status.FAILED


def _copy_outcome(trial: Trial, outcome: TrialOutcome) -> None:
    for name in ("tps", "tps_including_connections", "latency_avg_ms", "latency_stddev_ms", "transactions"):
        setattr(trial, name, getattr(outcome, name))
    trial.failed_transactions = outcome.failed_transactions
    trial.command = outcome.command
    trial.pgbench_version = outcome.pgbench_version[:40]
    trial.server_version = outcome.server_version[:40]
    trial.server_settings = outcome.server_settings
    trial.host_facts = outcome.host_facts
    trial.notes = "\n".join(outcome.notes)
    trial.error = f"attempt {trial.attempts}: {outcome.error}" if outcome.error else ""
    if outcome.started_at:
        trial.started_at = outcome.started_at


def study_continue(*, study_id: int) -> Trial | None:
    """After a trial: send the next pending trial's task (or of a round that adaptive repetitions add), or settle
    the study when none is left."""
    with transaction.atomic():
        next_trial = _next_pending_or_extended(study_id)
        if next_trial is None:
            _settle(study_id)
            return None
        retrying = next_trial.attempts > 0
        send_trial_after_commit(next_trial.pk, countdown=RETRY_COUNTDOWN_S if retrying else 0)
        return next_trial


def _next_pending(study_id: int) -> Trial | None:
    """The study's next trial to run; a pending trial with no attempt left (the cap was lowered) fails on the way."""
    pending = Trial.objects.filter(_study_is(*ACTIVE), study_id=study_id, status=Trial.Status.PENDING)
    pending.filter(attempts__gte=settings.TRIAL_MAX_ATTEMPTS).update(
        status=Trial.Status.FAILED,
        error=Concat(F("error"), Value(f" (no attempt left of {settings.TRIAL_MAX_ATTEMPTS})")),
        finished_at=timezone.now(),
    )
    return pending.order_by("position").first()


def _next_pending_or_extended(study_id: int) -> Trial | None:
    next_trial = _next_pending(study_id)
    if next_trial is None and study_extend(study_id=study_id):
        return _next_pending(study_id)
    return next_trial


def _settle(study_id: int) -> None:
    """RUNNING | QUEUED -> DONE when every trial succeeded, FAILED when one failed; only once none is
    pending or running."""
    trials = Trial.objects.filter(study_id=study_id)
    if trials.filter(status__in=(Trial.Status.PENDING, Trial.Status.RUNNING)).exists():
        return
    final = Study.Status.FAILED if trials.filter(status=Trial.Status.FAILED).exists() else Study.Status.DONE
    Study.objects.filter(pk=study_id, status__in=ACTIVE).update(status=final, finished_at=timezone.now())


def _send_next_trial(study_id: int, report: Callable[[bool], object] | None = None) -> None:
    next_trial = _next_pending(study_id)
    if next_trial is not None:
        send_trial_after_commit(next_trial.pk, report=report)


def trials_orphaned(*, broker_emptied: bool = False) -> list[int]:
    """Put back what lost its worker; return the trials whose task beat must send again.

    1. A running trial whose heartbeat is older than TRIAL_STALE_AFTER_S lost its worker: its attempt
       is marked lost, and the trial goes back to pending, or to failed when that was its last attempt
       (cancelled when its study was cancelled meanwhile).
    2. An active study with no running trial whose next pending trial has had no task on its way for
       that long gets that trial's task again, or at once when the broker lost its data (broker_emptied:
       the task it held is gone). A duplicate is harmless: only one claim succeeds.
    """
    cutoff = timezone.now() - timedelta(seconds=settings.TRIAL_STALE_AFTER_S)
    _put_back_lost(cutoff)
    resend: list[int] = []
    for study_id in Study.objects.filter(status__in=ACTIVE).values_list("pk", flat=True):
        with transaction.atomic():
            if Trial.objects.filter(study_id=study_id, status=Trial.Status.RUNNING).exists():
                continue
            next_trial = _next_pending_or_extended(study_id)
            if next_trial is None:
                _settle(study_id)
            elif broker_emptied or next_trial.heartbeat_at is None or next_trial.heartbeat_at < cutoff:
                send_trial_after_commit(next_trial.pk)
                resend.append(next_trial.pk)
    return resend


def _put_back_lost(cutoff: datetime) -> None:
    """Step 1 of trials_orphaned, in one transaction: no claim sees the trial back before its attempt is marked."""
    stale = Trial.objects.filter(status=Trial.Status.RUNNING, published=False, heartbeat_at__lt=cutoff)
    silent = f"worker lost (no heartbeat for {settings.TRIAL_STALE_AFTER_S} s)"
    with transaction.atomic():
        stale.update(outputs_due_at=Now())  # the lost attempt may have left files that no row names
        Attempt.objects.filter(
            Exists(stale.filter(pk=OuterRef("trial_id"), attempts=OuterRef("number"))), result=Attempt.Result.RUNNING
        ).update(result=Attempt.Result.LOST, error=silent)
        stale.filter(_study_is(Study.Status.CANCELLED)).update(status=Trial.Status.CANCELLED)
        error = Concat(Value("attempt "), F("attempts"), Value(f": {silent}"), output_field=TextField())
        active = stale.filter(_study_is(*ACTIVE))
        active.filter(attempts__gte=settings.TRIAL_MAX_ATTEMPTS).update(
            status=Trial.Status.FAILED, error=error, heartbeat_at=None, finished_at=timezone.now()
        )
        active.update(status=Trial.Status.PENDING, error=Concat(error, Value("; put back")), heartbeat_at=None)
