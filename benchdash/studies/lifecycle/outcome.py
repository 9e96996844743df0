"""A trial's finish: the attempt's outcome stored, and the trial's point, evidence and files brought up to date.

Only the attempt that is still current may store its outcome (services.trial_claim opened it); no file or network
I/O happens inside the transaction that holds the trial's row lock (trial_finish says in which order, and why).
"""

from collections.abc import Mapping
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from benchdash.inventory.models import FactsState, Host
from benchdash.store_clock import StoreNow, store_now
from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.lifecycle.artifact_files import (
    StoredFile,
    artifact_orphans_remove,
    attempt_files_write,
    files_delete,
)
from benchdash.studies.lifecycle.services import ACTIVE
from benchdash.studies.lifecycle.signals import send_study_ended_after_commit
from benchdash.studies.models import Artifact, Attempt, FailureKind, Study, Trial
from benchdash.studies.results.store import points_refresh
from workers.failure_kind import FailureKind as Engine
from workers.spec import TrialOutcome


def trial_finish(*, trial: Trial, outcome: TrialOutcome, stop_study: bool = False) -> Trial:
    """RUNNING -> SUCCEEDED | FAILED | CANCELLED, or back to PENDING while attempts remain (and the failure is not
    deterministic). stop_study: the study fails with this trial (as it does when its host stays unreachable).

    Only the attempt that is still current may store its outcome, artifacts and host facts (same attempt,
    still running), so a run that beat already put back is never stored twice. Either way its Attempt
    is closed with the time its worker was done with it. No file or network I/O happens inside the transaction
    that holds the trial's row lock:
    1. the attempt's files are written under names of its own (nothing refers to them yet);
    2. one transaction: the trial's state and outcome, its artifact rows (replacing an earlier attempt's), the
       attempt closed, the trial marked as having outputs due;
    3. after commit: the replaced files removed, then points and evidence refreshed (trial_outputs_refresh).
    A crash after 1 leaves files no row names, after 2 a trial whose outputs are due: beat repairs both
    (trials_outputs_repair), so nothing is lost and nothing is left behind. A write that fails in 1 leaves nothing
    (ArtifactWriteError).
    """
    written = attempt_files_write(trial_id=trial.pk, attempt=trial.attempts, artifacts=outcome.artifacts)
    with transaction.atomic():
        locked, replaced = _outcome_commit(trial, outcome, written, stop_study or outcome.host_unreachable)
    if locked is None:  # a later attempt, or beat, has the trial: what this attempt wrote is not kept
        files_delete(stored.name for stored in written.values())
        return Trial.objects.get(pk=trial.pk)
    files_delete(replaced)
    trial_outputs_refresh(locked, artifacts=outcome.artifacts)
    return locked


class DuetPartnerGone(RuntimeError):
    """The partner of a duet round is no longer pending: its round's outcome is not stored."""


def duet_round_finish(*, leader: Trial, partner: Trial, outcomes: tuple[TrialOutcome, TrialOutcome]) -> Trial:
    """A duet round's two outcomes stored together or not at all: trial_finish's steps for both sides, the leader as
    its current attempt, the partner claimed in the same transaction (PENDING -> RUNNING, its attempt numbered as the
    leader's) and finished at once, so that no side of a round is ever stored alone. The round's failure is both
    sides' (workers/duet.fail_together): both retry, or both fail. Returns the leader as stored."""
    first, second = outcomes
    written = attempt_files_write(trial_id=leader.pk, attempt=leader.attempts, artifacts=first.artifacts)
    written_partner = attempt_files_write(trial_id=partner.pk, attempt=leader.attempts, artifacts=second.artifacts)
    with transaction.atomic():
        locked, replaced = _outcome_commit(leader, first, written, first.host_unreachable)
        claimed: Trial | None = None
        replaced_partner: list[str] = []
        if locked is not None:
            running = _duet_partner_claim(partner, locked)
            claimed, replaced_partner = _outcome_commit(running, second, written_partner, False)
            _duet_cpus_keep({leader.pk: first, partner.pk: second})
    if locked is None or claimed is None:  # a later attempt, or beat, has the round
        files_delete(stored.name for stored in [*written.values(), *written_partner.values()])
        return Trial.objects.get(pk=leader.pk)
    files_delete([*replaced, *replaced_partner])
    trial_outputs_refresh(locked, artifacts=first.artifacts)
    trial_outputs_refresh(claimed, artifacts=second.artifacts)
    return locked


def _duet_partner_claim(partner: Trial, leader: Trial) -> Trial:
    """The partner as the leader's attempt, running, inside the round's transaction (the leader ended: the host's
    one running trial is free)."""
    changed = Trial.objects.filter(pk=partner.pk, status=Trial.Status.PENDING).update(
        status=Trial.Status.RUNNING, attempts=leader.attempts, worker=leader.worker, started_at=leader.started_at
    )
    if not changed:
        raise DuetPartnerGone(f"trial {partner.pk}, the duet partner of trial {leader.pk}, is no longer pending")
    started_at = leader.started_at or store_now()
    Attempt.objects.create(trial_id=partner.pk, number=leader.attempts, worker=leader.worker, started_at=started_at)
    return Trial.objects.select_related("study").get(pk=partner.pk)


def _duet_cpus_keep(outcomes: Mapping[int, TrialOutcome]) -> None:
    """Each side's CPUs, as its half held them on the host (the round noted both halves)."""
    for trial_id, outcome in outcomes.items():
        halves = outcome.host_facts.get("duet_halves")
        trial = Trial.objects.filter(pk=trial_id)
        half = trial.values_list("duet_half", flat=True).first()
        if isinstance(halves, list) and half is not None and half < len(halves):
            trial.update(duet_cpus=str(halves[half])[:200])


def trial_fail_for_storage(*, trial: Trial, reason: str, kind: Engine = Engine.STORAGE_FULL) -> Trial:
    """Storage that cannot keep an outcome: the trial fails at once with the reason, and its study stops, since the
    next runs would be thrown away too. Writes no file."""
    unkept = TrialOutcome(ok=False, error=reason, deterministic=True, failure_kind=kind)
    return trial_finish(trial=trial, outcome=unkept, stop_study=True)


def _outcome_commit(
    trial: Trial, outcome: TrialOutcome, written: Mapping[str, StoredFile], stop_study: bool
) -> tuple[Trial | None, list[str]]:
    """Step 2 of trial_finish: the locked trial (None when this attempt is no longer current) and the names of the
    files its new artifact rows replaced."""
    current = Trial.objects.select_for_update().filter(
        pk=trial.pk, status=Trial.Status.RUNNING, attempts=trial.attempts
    )
    locked = current.select_related("study").first()
    if locked is None:
        _close_attempt(trial, Attempt.Result.STALE, outcome)
        return None, []
    locked.status = _finished_status(locked, outcome)
    _copy_outcome(locked, outcome)
    locked.finished_at = store_now() if locked.status != Trial.Status.PENDING else None
    locked.save()
    Trial.objects.filter(pk=locked.pk).update(outputs_due_at=StoreNow())
    if stop_study:  # the next trials would wait for the same host, or be thrown away: the study stops, saying why
        stopped = Study.objects.filter(pk=locked.study_id, status__in=ACTIVE).update(
            status=Study.Status.FAILED, finished_at=locked.finished_at
        )
        if stopped:  # its end, like any other: its clusters leave its hosts now, not at beat's sweep
            send_study_ended_after_commit(locked.study_id)
    _close_attempt(locked, ATTEMPT_RESULT[locked.status], outcome)
    replaced = _artifact_rows_replace(locked, written)
    # Facts reused from earlier in the study (no "facts" phase) are already on the host.
    if outcome.host_facts and "facts" in outcome.timings and locked.host_id:
        facts = {name: value for name, value in outcome.host_facts.items() if name != "client_host"}
        read = {"facts_updated_at": timezone.now(), "facts_state": FactsState.READ, "facts_error": ""}
        Host.objects.filter(pk=locked.host_id).update(facts=facts, **read)
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
    due = Trial.objects.filter(outputs_due_at__lt=StoreNow() - OUTPUTS_REPAIR_AFTER).exclude(
        status=Trial.Status.RUNNING
    )
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


def _close_attempt(trial: Trial, result: str, outcome: TrialOutcome) -> None:
    """A lost attempt whose worker comes back after all keeps "lost" and gets its end time."""
    attempt = Attempt.objects.latest_of(trial.pk, trial.attempts).filter(finished_at__isnull=True)
    attempt.filter(result=Attempt.Result.RUNNING).update(result=result)
    attempt.update(finished_at=StoreNow(), error=outcome.error, failure_kind=failure_kind_kept(outcome))


def failure_kind_kept(outcome: TrialOutcome) -> str:
    """The kind the store keeps: the engine's, a failure it did not name counted as the target's."""
    if outcome.ok:
        return ""
    return outcome.failure_kind or FailureKind.TARGET_FAILED


def _finished_status(trial: Trial, outcome: TrialOutcome) -> str:
    if trial.study.status == Study.Status.CANCELLED:
        return Trial.Status.CANCELLED
    if outcome.ok:
        return Trial.Status.SUCCEEDED
    if trial.attempts < settings.TRIAL_MAX_ATTEMPTS and not (outcome.host_unreachable or outcome.deterministic):
        return Trial.Status.PENDING
    return Trial.Status.FAILED


def _copy_outcome(trial: Trial, outcome: TrialOutcome) -> None:
    for name in ("tps", "tps_including_connections", "latency_avg_ms", "latency_stddev_ms", "transactions"):
        setattr(trial, name, getattr(outcome, name))
    trial.server_cores = outcome.server_cores
    trial.failed_transactions = outcome.failed_transactions
    trial.command = outcome.command
    trial.pgbench_version = outcome.pgbench_version[:40]
    trial.server_version = outcome.server_version[:40]
    trial.server_settings = outcome.server_settings
    trial.host_facts = outcome.host_facts
    trial.notes = "\n".join(outcome.notes)
    trial.error = f"attempt {trial.attempts}: {outcome.error}" if outcome.error else ""
    trial.failure_kind = failure_kind_kept(outcome)
