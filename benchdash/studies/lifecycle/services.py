"""Study workflows over several models: create, queue, claim, cancel, retry, put back (a trial's finish: outcome.py).

The state machines are drawn on Study, Trial and Attempt (models.py). A trial is claimed with one
conditional UPDATE of its own row (... WHERE status = 'pending') that did or did not change it, and the
partial unique constraint trial_one_running_per_host keeps each DB host to one running trial: the
database, not the broker, decides who runs what. Every claim opens an Attempt; only the current one
(same attempt number, still running) may write the trial. Tasks are sent only after the transaction
that made them commits, and a broker that cannot take one leaves the trial for beat to send.
"""

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, cast

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, QuerySet, TextField, Value
from django.db.models.functions import Concat

from benchdash.store_clock import StoreNow, store_now
from benchdash.studies.design import StudyDesign
from benchdash.studies.lifecycle.adaptive import study_extend
from benchdash.studies.lifecycle.host_turns import next_trials
from benchdash.studies.lifecycle.plan import VariantRef, plan_design
from benchdash.studies.lifecycle.signals import send_study_ended_after_commit, send_trial_after_commit
from benchdash.studies.models import Attempt, FailureKind, Study, Trial, Variant

ACTIVE = (Study.Status.QUEUED, Study.Status.RUNNING)
FINISHED_TRIALS = (Trial.Status.SUCCEEDED, Trial.Status.FAILED)


class HostBusy(Exception):
    """Another trial is running on this trial's DB host."""


@transaction.atomic
def study_create(*, design: StudyDesign, created_by: Any = None) -> Study:
    """Save a study from its design and expand it into its planned trials (status draft)."""
    study, variants = study_saved(design, design.variants(), created_by=created_by)
    study.add_planned_trials(plan_design(design, variants=[VariantRef(row.build_id, row.pk) for row in variants]))
    return study


def study_saved(
    design: StudyDesign, designed: Sequence[Variant], *, created_by: Any = None
) -> tuple[Study, list[Variant]]:
    """The study of the design saved with its scenarios and these (unsaved) variants, no trials yet."""
    creator = created_by if getattr(created_by, "pk", None) else None
    study = Study.objects.create(**design.study_fields(), created_by=creator)
    study.scenarios.set(design.scenarios)
    return study, study_variants_save(study, designed)


def study_variants_save(study: Study, designed: Sequence[Variant]) -> list[Variant]:
    """Save the designed (unsaved) variants as the study's, in their order; its builds and baseline build follow."""
    for position, variant in enumerate(designed):
        variant.study, variant.position = study, position
    variants = Variant.objects.bulk_create(designed)
    study.builds.set({variant.build_id for variant in variants})
    baseline = next((variant.build_id for variant in variants if variant.baseline), None)
    Study.objects.filter(pk=study.pk).update(baseline_id=baseline)
    study.baseline_id = baseline
    return variants


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
    """DRAFT | QUEUED | RUNNING -> CANCELLED. Pending trials are cancelled; the running one stops through the
    runner's should_cancel, which reads the study's status; finished trials stay. A draft is a study whose cloud
    instances are being launched: the launch reads the status too, and never queues a cancelled study."""
    with transaction.atomic():
        changed = Study.objects.filter(pk=study.pk, status__in=(Study.Status.DRAFT, *ACTIVE)).update(
            status=Study.Status.CANCELLED, finished_at=StoreNow()
        )
        if changed:
            study.trials.filter(status=Trial.Status.PENDING).update(status=Trial.Status.CANCELLED)
            send_study_ended_after_commit(study.pk)
    study.refresh_from_db(fields=["status", "finished_at"])
    return bool(changed)


def repeating_failures(*, study: Study) -> list[str]:
    """The errors of the study's failed trials whose cause repeats (workers/repeating_failure.py), each once: run
    again with nothing changed, they fail the same way."""
    failed = study.trials.filter(status=Trial.Status.FAILED, failure_kind=FailureKind.CAUSE_REPEATS)
    return sorted(set(failed.values_list("error", flat=True)))


def study_retry_failed(*, study: Study) -> int:
    """Put the failed trials back (fresh attempts) and queue the study again; returns how many."""
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        count = locked.trials.filter(status=Trial.Status.FAILED).update(
            status=Trial.Status.PENDING, attempts=0, error="", failure_kind="", finished_at=None
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
    claimable = Trial.objects.filter(
        _study_is(*ACTIVE), pk=trial_id, status=Trial.Status.PENDING, attempts__lt=settings.TRIAL_MAX_ATTEMPTS
    )
    try:
        with transaction.atomic():
            changed = claimable.update(
                status=Trial.Status.RUNNING,
                attempts=F("attempts") + 1,
                worker=worker[:200],
                finished_at=None,
            )
            if changed:
                # The store's time once the UPDATE is through: it may have waited on trial_one_running_per_host for
                # the host's previous trial to end, and the attempt starts only once it has, after that one's end.
                Trial.objects.filter(pk=trial_id).update(started_at=StoreNow(), heartbeat_at=StoreNow())
                trial = Trial.objects.select_related("study").get(pk=trial_id)
                started_at = cast(datetime, trial.started_at)  # just written
                Attempt.objects.create(trial=trial, number=trial.attempts, worker=worker[:200], started_at=started_at)
    except IntegrityError:
        raise HostBusy(trial_id) from None
    if not changed:
        return None
    Study.objects.filter(pk=trial.study_id, status=Study.Status.QUEUED).update(status=Study.Status.RUNNING)
    Study.objects.filter(pk=trial.study_id, started_at__isnull=True).update(started_at=trial.started_at)
    return trial


def _study_is(*statuses: str) -> Exists:
    """The trial's study has one of these statuses, as a condition on the trial's own row. An UPDATE
    filtered so stays one statement on the trial table, which re-checks the trial's status after a
    concurrent change; a filter through the join (study__status) would not (see trial_claim)."""
    return Exists(Study.objects.filter(pk=OuterRef("study_id"), status__in=statuses))


def trial_touch(*, trial_id: int) -> None:
    """Mark a pending trial as having a task on its way, so beat does not send another."""
    Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=StoreNow())


def attempt_is_current(*, trial_id: int, attempt: int) -> bool:
    """Whether this attempt may go on: its trial still runs as this attempt, in an active study.
    False once the study was cancelled, or beat put the trial back (a later attempt may run it now)."""
    return Trial.objects.filter(
        pk=trial_id, status=Trial.Status.RUNNING, attempts=attempt, study__status__in=ACTIVE
    ).exists()


def trial_heartbeat(*, trial_id: int, attempt: int) -> bool:
    """Say that this attempt still runs; False when it is no longer the trial's current attempt (refused)."""
    current = Trial.objects.filter(pk=trial_id, status=Trial.Status.RUNNING, attempts=attempt)
    return bool(current.update(heartbeat_at=StoreNow()))


def trial_give_back(*, trial_id: int, attempt: int) -> bool:
    """RUNNING -> PENDING for an attempt that did nothing on its hosts, because its DB host was busy with another
    installation (workers/host_lock.py). The attempt is taken back with the trial (its row goes, the count goes down):
    waiting for a host costs a trial none of its attempts. False when the attempt is no longer the trial's current."""
    with transaction.atomic():
        current = Trial.objects.filter(pk=trial_id, status=Trial.Status.RUNNING, attempts=attempt)
        given_back = current.update(status=Trial.Status.PENDING, attempts=F("attempts") - 1, heartbeat_at=StoreNow())
        if given_back:
            Attempt.objects.latest_of(trial_id, attempt).delete()
    return bool(given_back)


def study_continue(*, study_id: int, host_id: int | None = None) -> Trial | None:
    """After a trial on host_id: send the next pending trial's task on that host (each DB host of a study runs its
    own trials one after another, the hosts at the same time, unless its host order or load says otherwise:
    host_turns.py), or, when no trial is left anywhere, the first of a
    round that adaptive repetitions add on each host; settle the study when none is left."""
    with transaction.atomic():
        next_trials = _next_pending_or_extended(study_id, host_id)
        if not next_trials:
            _settle(study_id)
            return None
        for next_trial in next_trials:
            retrying = next_trial.attempts > 0
            send_trial_after_commit(next_trial.pk, countdown=settings.TRIAL_RETRY_DELAY_S if retrying else 0)
        return next_trials[0]


def _next_pending(study_id: int, host_id: int | None = None) -> list[Trial]:
    """The study's trials to send now, as its host order and load say (host_turns.next_trials): by default its next
    trial on host_id, or (None) the first on each of its DB hosts that runs none of its trials now; a pending trial
    with no attempt left (the cap was lowered) fails on the way."""
    pending = Trial.objects.filter(_study_is(*ACTIVE), study_id=study_id, status=Trial.Status.PENDING)
    pending.filter(attempts__gte=settings.TRIAL_MAX_ATTEMPTS).update(
        status=Trial.Status.FAILED,
        error=Concat(F("error"), Value(f" (no attempt left of {settings.TRIAL_MAX_ATTEMPTS})")),
        finished_at=StoreNow(),
    )
    return next_trials(study_id, pending, host_id)


def _next_pending_or_extended(study_id: int, host_id: int | None = None) -> list[Trial]:
    next_trials = _next_pending(study_id, host_id)
    if not next_trials and study_extend(study_id=study_id):
        return _next_pending(study_id)
    return next_trials


def _settle(study_id: int) -> None:
    """RUNNING | QUEUED -> DONE when every trial succeeded, FAILED when one failed; only once none is
    pending or running."""
    trials = Trial.objects.filter(study_id=study_id)
    if trials.filter(status__in=(Trial.Status.PENDING, Trial.Status.RUNNING)).exists():
        return
    final = Study.Status.FAILED if trials.filter(status=Trial.Status.FAILED).exists() else Study.Status.DONE
    if Study.objects.filter(pk=study_id, status__in=ACTIVE).update(status=final, finished_at=StoreNow()):
        send_study_ended_after_commit(study_id)


def _send_next_trial(study_id: int, report: Callable[[bool], object] | None = None) -> None:
    """Send the first pending trial of each of the study's DB hosts."""
    for next_trial in _next_pending(study_id):
        send_trial_after_commit(next_trial.pk, report=report)


def trials_orphaned(*, broker_emptied: bool = False, store_up_since: datetime | None = None) -> list[int]:
    """Put back what lost its worker; return the trials whose task beat must send again.

    1. A running trial whose heartbeat is older than TRIAL_STALE_AFTER_S lost its worker: its attempt
       is marked lost, and the trial goes back to pending, or to failed when that was its last attempt
       (cancelled when its study was cancelled meanwhile). Silence is never counted across the store's own
       outage: none is put back before the store has answered for that long since store_up_since (its start or
       its return from an outage: benchdash/queue/outage_mark.py).
    2. Each DB host of an active study that runs none of its trials, whose next pending trial there has had no
       task on its way for that long, gets that trial's task again, or at once when the broker lost its data
       (broker_emptied: the task it held is gone). A duplicate is harmless: only one claim succeeds.
    """
    cutoff = store_now() - timedelta(seconds=settings.TRIAL_STALE_AFTER_S)
    if store_up_since is None or store_up_since < cutoff:
        _put_back_lost(cutoff)
    resend: list[int] = []
    for study_id in Study.objects.filter(status__in=ACTIVE).values_list("pk", flat=True):
        with transaction.atomic():
            next_trials = _next_pending_or_extended(study_id)
            if not next_trials:
                _settle(study_id)
            for next_trial in next_trials:
                if broker_emptied or next_trial.heartbeat_at is None or next_trial.heartbeat_at < cutoff:
                    send_trial_after_commit(next_trial.pk)
                    resend.append(next_trial.pk)
    return resend


def _put_back_lost(cutoff: datetime) -> None:
    """Step 1 of trials_orphaned."""
    stale = Trial.objects.filter(status=Trial.Status.RUNNING, published=False, heartbeat_at__lt=cutoff)
    _put_back(stale, f"worker lost (no heartbeat for {settings.TRIAL_STALE_AFTER_S} s)")


def trial_put_back_lost(*, trial_id: int, attempt: int, why: str) -> bool:
    """Put back the trial whose attempt `attempt` was lost for the reason `why`, as beat does a silent one; False
    when that attempt is no longer the trial's running one (it ended, or was put back already)."""
    lost = Trial.objects.filter(pk=trial_id, status=Trial.Status.RUNNING, attempts=attempt, published=False)
    return bool(_put_back(lost, why))


def _put_back(lost: QuerySet[Trial], why: str) -> int:
    """In one transaction, so that no claim sees a trial back before its attempt is marked: the lost attempts end
    `lost`, and their trials go back to pending, or fail at the cap (cancelled in a cancelled study)."""
    with transaction.atomic():
        count = lost.update(outputs_due_at=StoreNow())  # the lost attempt may have left files that no row names
        Attempt.objects.filter(
            Exists(lost.filter(pk=OuterRef("trial_id"), attempts=OuterRef("number"))), result=Attempt.Result.RUNNING
        ).update(result=Attempt.Result.LOST, error=why, failure_kind=FailureKind.WORKER_LOST)
        lost.filter(_study_is(Study.Status.CANCELLED)).update(status=Trial.Status.CANCELLED)
        error = Concat(Value("attempt "), F("attempts"), Value(f": {why}"), output_field=TextField())
        active = lost.filter(_study_is(*ACTIVE))
        lost_kind = {"failure_kind": FailureKind.WORKER_LOST, "heartbeat_at": None}
        active.filter(attempts__gte=settings.TRIAL_MAX_ATTEMPTS).update(
            status=Trial.Status.FAILED, error=error, finished_at=StoreNow(), **lost_kind
        )
        active.update(status=Trial.Status.PENDING, error=Concat(error, Value("; put back")), **lost_kind)
    return count
