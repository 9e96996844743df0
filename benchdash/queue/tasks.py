"""Celery tasks: the glue between the store and the engine (workers/), which they call and which knows nothing of them.

One task runs one trial, then sends the task of the next one, so that no task lives longer than
TRIAL_TIME_LIMIT, which stays well under the broker's visibility timeout (Redis hands an
unacknowledged task to a second worker after that timeout). The work itself is elsewhere: the store's
side in benchdash.studies (services, specs), the target's in workers.attempt.

The store may go away for a while (a restart of its PostgreSQL): the heartbeat goes on trying, and the
outcome waits until it can be stored, so that a healthy attempt is neither put back nor lost.
"""

import logging
from contextlib import ExitStack
from datetime import datetime
from functools import partial
from typing import Any

from celery import shared_task
from celery.schedules import crontab
from celery.signals import worker_ready
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections, connection
from django.utils import timezone

from benchdash.alerts.delivery import DeliveryFailed
from benchdash.alerts.digest import digests_send
from benchdash.alerts.raising import alerts_for_changes, alerts_for_study
from benchdash.alerts.sending import alert_send
from benchdash.celery import app, host_queue
from benchdash.changes.bisects import bisect_advance
from benchdash.changes.refresh import changes_refresh as refresh_change_points
from benchdash.inventory.host_facts import host_facts_read, host_facts_refresh
from benchdash.inventory.models import Host
from benchdash.queue.heartbeat import AttemptWatch, heartbeat
from benchdash.queue.lost_child import TrialRequest
from benchdash.queue.sweep import put_back_orphans, sweep_from_worker, sweep_orphans
from benchdash.queue.work_dir import clear_host_clusters, hosts_to_sweep
from benchdash.queue.worker_queues import serve_hosts
from benchdash.store_clock import StoreNow, due_in, sleep_until
from benchdash.store_retry import STORE_UNREACHABLE, with_store_retry
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.artifact_files import ArtifactWriteError
from benchdash.studies.lifecycle.calibration import calibration_evaluate
from benchdash.studies.lifecycle.host_turns import duet_partner
from benchdash.studies.lifecycle.noise import noise_check_keep, study_needs_noise_check
from benchdash.studies.lifecycle.outcome import duet_round_finish, trial_fail_for_storage, trial_finish
from benchdash.studies.lifecycle.specs import cancelled_trial_spec, duet_specs, host_spec, trial_spec
from benchdash.studies.lifecycle.storage_room import storage_no_room
from benchdash.studies.models import Trial
from workers.attempt import run_attempt, run_duet_attempt, stop_server_kept_for
from workers.failure_kind import FailureKind
from workers.host_lock import HostLockBusy, host_lock_on
from workers.host_wait import HostPatience
from workers.preflight import check_host
from workers.spec import HostSpec, TrialOutcome, TrialSpec
from workers.transport import TransportError

logger = logging.getLogger(__name__)
# How long clear_study_clusters waits for a cancelled study's running trial to stop, and how often it looks.
STUDY_END_WAIT_S, STUDY_END_POLL_S = 600, 2
# A trial's task that is not due yet waits in its worker at most this long, then goes back to the queue.
DUE_WAIT_S = 60
# How often beat looks for clusters that nothing needs any more (each look measures the host's work dir).
WORK_DIR_SWEEP_EVERY_S = 600

if settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] < settings.TRIAL_TIME_LIMIT * 2:
    raise ImproperlyConfigured("BENCHDASH_TRIAL_TIME_LIMIT must stay under half of CELERY_VISIBILITY_TIMEOUT")


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.TRIAL_TIME_LIMIT,
    soft_time_limit=max(settings.TRIAL_TIME_LIMIT - 60, settings.TRIAL_TIME_LIMIT // 2),
    max_retries=None,
    Request=TrialRequest,
)
def run_study_trial(self: Any, trial_id: int, due_at: str = "") -> str:
    """Claim trial_id once due_at has come on the store's clock (a retry's delay), run it on its hosts, store what came
    out, send the next trial's task."""
    close_old_connections()
    if not sleep_until(due_at, at_most_s=DUE_WAIT_S):  # not due for a while: the queue keeps it meanwhile
        raise self.retry(kwargs={"due_at": due_at}, countdown=0)
    try:
        trial = services.trial_claim(trial_id=trial_id, worker=self.request.hostname or "")
    except services.HostBusy:
        services.trial_touch(trial_id=trial_id)
        # The trial that holds the host may have lost its worker: put it back now rather than when beat runs.
        put_back_orphans()
        raise _retry_once_the_host_may_be_free(self) from None
    if trial is None:
        if (kept := cancelled_trial_spec(trial_id)) is not None:
            stop_server_kept_for(kept, on_wait=report_host_wait)
        return "not pending"
    if (no_room := storage_no_room(study_id=trial.study_id)) is not None:  # no benchmark for nothing: stop now
        trial = with_store_retry(partial(trial_fail_for_storage, trial=trial, reason=no_room), "stop the study")
    elif (stored := run_and_store(trial)) is None:  # its DB host was busy with another installation: it waits
        raise _retry_once_the_host_may_be_free(self)
    else:
        trial = stored
    if trial.status != Trial.Status.RUNNING:  # running: a later attempt has it, and its end goes on
        next_on_host = partial(services.study_continue, study_id=trial.study_id, host_id=trial.host_id)
        with_store_retry(next_on_host, "send the next trial")
    logger.info("trial %s of study %s: %s %s", trial.pk, trial.study_id, trial.status, trial.tps)
    return str(trial.status)


def _retry_once_the_host_may_be_free(task: Any) -> Exception:
    """The task sent again HOST_BUSY_RETRY_S from now on the store's clock: its DB host runs another study's trial, or
    another installation's."""
    return task.retry(kwargs={"due_at": due_in(settings.HOST_BUSY_RETRY_S)}, countdown=0)


def run_and_store(trial: Trial) -> Trial | None:
    """Run the claimed trial's attempt on its hosts under a heartbeat (a duet study's leader: its round, both sides),
    and store its outcome; None when its DB host was busy with another installation: the attempt did nothing, and
    the trial was given back to wait for the host."""
    partner = duet_partner(trial) if trial.study.is_duet else None
    spec = trial_spec(trial)
    watch = AttemptWatch(trial.pk, trial.attempts)
    with heartbeat(watch):
        # Before the first trial: the host is this study's now.
        busy_with = look_before_the_study(trial, spec) if study_needs_noise_check(trial) else ""
        if not busy_with:
            outcomes = _attempt_outcomes(trial, partner, spec, watch)
            busy_with = outcomes[0].host_busy_with
        watch.storing = True
        with_store_retry(partial(Host.note_busy, spec.db_host.name, busy_with), "note the host's lock")
        if busy_with:
            give_back = partial(services.trial_give_back, trial_id=trial.pk, attempt=trial.attempts)
            with_store_retry(give_back, "give the trial back")
            return None
        if partner is not None and len(outcomes) == len(DUET_SIDES):
            return store_round(trial, partner, (outcomes[0], outcomes[1]))
        return store_outcome(trial, outcomes[0])


DUET_SIDES = ("leader", "partner")


def _attempt_outcomes(
    trial: Trial, partner: Trial | None, spec: TrialSpec, watch: AttemptWatch
) -> tuple[TrialOutcome, ...]:
    """The attempt's outcome, or a duet round's two (leader's, partner's)."""
    patience = HostPatience(tuple(settings.HOST_WAIT_DELAYS_S), settings.HOST_WAIT_LIMIT_S)
    if trial.study.is_duet and partner is None:
        error = f"its duet partner (the other side of round {trial.repetition}) is not pending"
        return (TrialOutcome(ok=False, error=error, deterministic=True, failure_kind=FailureKind.TARGET_FAILED),)
    if partner is not None:
        specs = duet_specs(trial, partner)
        return run_duet_attempt(specs, should_cancel=watch.should_stop, patience=patience, on_wait=report_host_wait)
    return (run_attempt(spec, should_cancel=watch.should_stop, patience=patience, on_wait=report_host_wait),)


def store_round(leader: Trial, partner: Trial, outcomes: tuple[TrialOutcome, TrialOutcome]) -> Trial:
    """Store a duet round's two outcomes together (outcome.duet_round_finish); a store that cannot keep them stores
    the leader's attempt as failed for that reason: the round runs again, its partner still pending."""
    try:
        round_finish = partial(duet_round_finish, leader=leader, partner=partner, outcomes=outcomes)
        return with_store_retry(round_finish, "store the duet round")
    except STORE_UNREACHABLE:
        raise
    except Exception as error:
        logger.exception("trial %s: the store could not keep duet round attempt %s", leader.pk, leader.attempts)
        unkept = f"the store could not keep the duet round: {type(error).__name__}: {error}"
        failed = TrialOutcome(ok=False, error=unkept, failure_kind=FailureKind.STORE_FAILED)
        return with_store_retry(lambda: trial_finish(trial=leader, outcome=failed), "store the failure")


def look_before_the_study(trial: Trial, spec: TrialSpec) -> str:
    """The host's facts again if it booted, and its noise check, under the host-wide lock: another installation's run
    is neither measured by the check nor disturbed by it (nor by the facts' tool versions). The holder's id when
    another installation holds the lock: nothing is done, and the trial waits as for a busy host. A host that does not
    answer now is looked at without the lock: the attempt waits for it (workers/host_wait.py)."""
    with ExitStack() as stack:
        try:
            stack.enter_context(host_lock_on(spec.db_host))
        except HostLockBusy as busy:
            return busy.holder
        except TransportError as error:
            logger.warning("host %s: looked at before the study without its lock: %s", spec.db_host.name, error)
        refresh_facts_if_rebooted(trial.host_id)
        report = noise_check(spec.db_host)
    noise_check_keep(report=report, host_id=trial.host_id, study_id=trial.study_id)
    return ""


def refresh_facts_if_rebooted(host_id: int | None) -> None:
    """Read the DB host's facts again when it booted since they were read; a host that cannot be reached now is the
    attempt's to wait for (workers/host_wait.py), not this look's."""
    try:
        if host_id is not None and host_facts_refresh(host_id=host_id):
            logger.info("host %s booted since its facts were read: read again", host_id)
    except TransportError as error:
        logger.warning("could not look whether host %s booted since its facts were read: %s", host_id, error)


@worker_ready.connect
def consume_host_queues(sender: Any, **kwargs: Any) -> None:
    """As the worker gets ready: take the trials of the hosts it serves (benchdash/queue/worker_queues.py), and look
    for lost trials from then on (benchdash/queue/sweep.py): recovery does not wait for beat, which stays the
    backstop."""
    serve_hosts(sender)
    sweep_from_worker()


@shared_task
def requeue_orphaned_studies() -> list[int]:
    """Beat: the sweep for what lost its worker (benchdash/queue/sweep.py)."""
    close_old_connections()
    return sweep_orphans()


app.add_periodic_task(settings.REQUEUE_EVERY_S, requeue_orphaned_studies.s(), name="requeue-orphaned-studies")


@shared_task
def check_host_noise(host_id: int) -> str:
    """The host page's "check noise now": run the noise check on the host and keep its report there. A host busy with
    another installation is not checked (workers/preflight.check_host): the report and the host's note say so."""
    close_old_connections()
    host = Host.objects.get(pk=host_id)
    report = noise_check(host_spec(host))
    if report.get("busy_with"):
        Host.note_busy(host.name, report["busy_with"])
    noise_check_keep(report=report, host_id=host.pk)
    return str(report["verdict"])


@shared_task
def read_host_facts(host_id: int) -> str:
    """A host saved in the admin: read its facts (inventory/host_facts.py); the host page shows how it went."""
    close_old_connections()
    return str(host_facts_read(host_id=host_id).facts_state)


def noise_check(host: HostSpec) -> dict[str, Any]:
    """The noise check of the host, as the settings size it."""
    return check_host(host, settings.NOISE_SAMPLE_MS, settings.NOISE_MICRO_RUNS, on_wait=report_host_wait)


def report_host_wait(host_name: str, since: datetime | None) -> None:
    """Tell the study page that an attempt waits for this host, since when (None: it answers).
    Only a note: a store that cannot take it now does not stop the wait."""
    try:
        _note_host_wait(host_name, since)
    except STORE_UNREACHABLE as error:
        connection.close()
        logger.warning("could not note that host %s is unreachable: %s", host_name, error)
    if since is not None:
        logger.warning("host %s unreachable since %s: waiting for it", host_name, since)


def _note_host_wait(host_name: str, since: datetime | None) -> None:
    if since is None:  # reported at every connection
        Host.note_answered(host_name)
    else:  # the wait begins now: noted in the store's time, as the trial's times are (a worker's clock may be off)
        Host.objects.filter(name=host_name).update(unreachable_since=StoreNow())


def store_outcome(trial: Trial, outcome: TrialOutcome) -> Trial:
    """Store the attempt's outcome, waiting for the store when it is unreachable. Artifact storage that cannot keep
    it (full, unusable) fails the trial at once and stops the study, with the room it lacks where that is measured;
    any other error of the store fails the attempt with that reason, under the attempt cap."""
    try:
        return with_store_retry(lambda: trial_finish(trial=trial, outcome=outcome), "store the outcome")
    except STORE_UNREACHABLE:
        raise
    except ArtifactWriteError as error:
        logger.error("trial %s: the artifact storage could not keep attempt %s: %s", trial.pk, trial.attempts, error)
        size = sum(len(data) for data in outcome.artifacts.values())
        unkept = f"the store could not keep the outcome: {error}"
        no_room = storage_no_room(study_id=trial.study_id, outcome_size=size)
        kind = FailureKind.STORE_FAILED if no_room is None else FailureKind.STORAGE_FULL
        stop = partial(trial_fail_for_storage, trial=trial, reason=no_room or unkept, kind=kind)
        return with_store_retry(stop, "stop the study")
    except Exception as error:
        logger.exception("trial %s: the store could not keep the outcome of attempt %s", trial.pk, trial.attempts)
        unkept = f"the store could not keep the outcome: {type(error).__name__}: {error}"
        failed = TrialOutcome(ok=False, error=unkept, failure_kind=FailureKind.STORE_FAILED)
        return with_store_retry(lambda: trial_finish(trial=trial, outcome=failed), "store the failure")


@shared_task(bind=True, max_retries=STUDY_END_WAIT_S // STUDY_END_POLL_S)
def clear_study_clusters(self: Any, study_id: int, host_name: str = "") -> list[str]:
    """After a study ended or was cancelled, on the queue of one of its DB hosts (host_name; empty: the study's):
    once none of its trials runs any more (a cancelled one stops within seconds), remove the host's clusters that
    nothing needs (benchdash/queue/work_dir.py: the study's own among them, unless it keeps its data)."""
    close_old_connections()
    if Trial.objects.filter(study_id=study_id, status=Trial.Status.RUNNING).exists():
        raise self.retry(countdown=STUDY_END_POLL_S)
    hosts = Host.objects.filter(name=host_name) if host_name else Host.objects.filter(db_studies=study_id)
    host = hosts.first()
    return clear_host_clusters(host, clear_kept=False) if host is not None else []


@shared_task
def clear_work_dir(host_id: int) -> list[str]:
    """The host page's "clear work dir": remove every cluster that nothing needs, kept ones too."""
    close_old_connections()
    return clear_host_clusters(Host.objects.get(pk=host_id), clear_kept=True)


@shared_task
def clear_ended_clusters(host_id: int) -> list[str]:
    """The periodic clean-up of one host: clusters of ended studies that a lost clear_study_clusters left."""
    close_old_connections()
    return clear_host_clusters(Host.objects.get(pk=host_id), clear_kept=False)


@shared_task
def sweep_work_dirs() -> list[int]:
    """Beat: send clear_ended_clusters to each host that may hold clusters nobody needs; a host no worker serves
    drops it (expires) rather than piling it up."""
    close_old_connections()
    hosts = hosts_to_sweep()
    for host in hosts:
        clear_ended_clusters.apply_async(
            (host.pk,), queue=host_queue(host.name), expires=WORK_DIR_SWEEP_EVERY_S, ignore_result=True
        )
    return [host.pk for host in hosts]


@shared_task
def changes_refresh(scenario_ids: list[int] | None = None) -> int:
    """Recompute the change points of the series of `scenario_ids` (None: every series), after a series changed
    (benchdash/queue/changes.py); idempotent, so a task sent twice, or run again after a lost worker, does no harm."""
    close_old_connections()
    return refresh_change_points(scenario_ids)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def advance_bisect(study_id: int) -> str:
    """After a bisect step's study ended (benchdash/queue/study_end.py): record its verdict and queue the next step,
    or conclude (benchdash/changes/bisects.py); the bisect's status after it, empty when there was nothing to do.
    Idempotent: under the step's row lock, a step with its verdict recorded is left alone, so a task sent twice, or run
    again after a lost worker, queues one next step."""
    close_old_connections()
    bisect = bisect_advance(study_id=study_id)
    return "" if bisect is None else str(bisect.status)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def evaluate_calibration(study_id: int) -> bool:
    """After a calibration's study ended (benchdash/queue/study_end.py): its rounds resampled into what the design
    detects (studies/lifecycle/calibration.py); whether it was measured. Idempotent: the same rounds give the same
    figures, written again."""
    close_old_connections()
    return calibration_evaluate(study_id=study_id) is not None


app.add_periodic_task(WORK_DIR_SWEEP_EVERY_S, sweep_work_dirs.s(), name="sweep-work-dirs")


@shared_task
def raise_change_alerts(change_ids: list[int]) -> int:
    """New change points (benchdash/queue/alerts.py): the alerts of the subscriptions that watch them; a task sent
    twice raises nothing twice (one alert per subscription and change)."""
    close_old_connections()
    return len(alerts_for_changes(change_ids=change_ids))


@shared_task
def raise_study_alerts(study_id: int) -> int:
    """An official study ended, or a study was marked official: the alerts of its faster and slower verdicts."""
    close_old_connections()
    return len(alerts_for_study(study_id=study_id))


@shared_task(
    bind=True,
    autoretry_for=(DeliveryFailed,),
    max_retries=settings.ALERT_RETRIES,
    retry_backoff=settings.ALERT_RETRY_BACKOFF_S,
    retry_backoff_max=600,
    retry_jitter=True,
)
def send_alert(self: Any, alert_id: int) -> str:
    """Send one due alert (benchdash/alerts/sending.py); an endpoint or mail server that fails is tried again with
    backoff, and the last try records the failure on the alert. Nothing of the study that raised it waits for it."""
    close_old_connections()
    status = alert_send(alert_id=alert_id, last_try=self.request.retries >= self.max_retries)
    return "" if status is None else str(status)


@shared_task
def send_digests() -> int:
    """Beat, weekly: each subscriber's digest (benchdash/alerts/digest.py)."""
    close_old_connections()
    return digests_send(now=timezone.now())


app.add_periodic_task(crontab(minute=0, hour=7, day_of_week="mon"), send_digests.s(), name="send-alert-digests")
