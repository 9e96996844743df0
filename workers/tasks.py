"""Celery tasks: the bridge between the database and the engine, and the only workers/ module that
imports Django.

One task runs one trial, then sends the task of the next one, so that no task lives longer than
TRIAL_TIME_LIMIT, which stays well under the broker's visibility timeout (Redis hands an
unacknowledged task to a second worker after that timeout).
"""

import logging
import threading
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections, connection
from django.db.models import F

from benchdash.studies import services
from benchdash.studies.models import Study, Trial
from workers.runner import run_trial, stop_kept_server
from workers.spec import BuildSpec, HostSpec, ScenarioSpec, TrialOutcome, TrialSpec
from workers.transport import connect

logger = logging.getLogger(__name__)

if settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] < settings.TRIAL_TIME_LIMIT * 2:
    raise ImproperlyConfigured("BENCHDASH_TRIAL_TIME_LIMIT must stay under half of CELERY_VISIBILITY_TIMEOUT")


@shared_task(
    bind=True,
    name="workers.tasks.run_study_trial",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.TRIAL_TIME_LIMIT,
    soft_time_limit=max(settings.TRIAL_TIME_LIMIT - 60, settings.TRIAL_TIME_LIMIT // 2),
    max_retries=None,
)
def run_study_trial(self: Any, trial_id: int) -> str:
    """Claim trial_id, run it on its hosts, store what came out, send the next trial's task."""
    close_old_connections()
    try:
        trial = services.trial_claim(trial_id=trial_id, worker=self.request.hostname or "")
    except services.HostBusy:
        services.trial_touch(trial_id=trial_id)
        raise self.retry(countdown=settings.HOST_BUSY_RETRY_S) from None
    if trial is None:
        _stop_server_of_cancelled(trial_id)
        return "not pending"
    outcome = _run_with_heartbeat(trial)
    trial = services.trial_finish(trial=trial, outcome=outcome)
    services.study_continue(study_id=trial.study_id)
    logger.info("trial %s of study %s: %s %s", trial.pk, trial.study_id, trial.status, trial.tps)
    return str(trial.status)


@shared_task(name="workers.tasks.requeue_orphaned_studies")
def requeue_orphaned_studies() -> list[int]:
    """Beat: put back trials whose worker vanished and resend studies with no task in flight."""
    close_old_connections()
    resent = services.trials_orphaned()
    if resent:
        logger.warning("resent orphaned trials: %s", resent)
    return resent


def _run_with_heartbeat(trial: Trial) -> TrialOutcome:
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(trial.pk, stop), daemon=True)
    beat.start()
    try:
        return _run(trial)
    finally:
        stop.set()
        beat.join(timeout=5)


def _heartbeat(trial_id: int, stop: threading.Event) -> None:
    try:
        while not stop.wait(settings.TRIAL_HEARTBEAT_S):
            services.trial_heartbeat(trial_id=trial_id)
    finally:
        connection.close()


def _run(trial: Trial) -> TrialOutcome:
    """Any failure of the target (SSH, server, pgbench, time limit) is an outcome, not a crash:
    the attempt counts and the study goes on."""
    spec = trial_spec(trial)
    try:
        with ExitStack() as stack:
            db = stack.enter_context(connect(spec.db_host))
            client = None if spec.client_host == spec.db_host else stack.enter_context(connect(spec.client_host))
            cancelled = partial(services.study_is_cancelled, study_id=trial.study_id)
            outcome = run_trial(spec, db, client, should_cancel=cancelled)
            if outcome.ok and spec.collect_perf and trial.repetition == 1:
                _add_profile(
                    outcome,
                    run_trial(replace(spec, profile_only=True, reset_data=False), db, client, should_cancel=cancelled),
                )
            return outcome
    except Exception as error:
        logger.exception("trial %s failed on its target", trial.pk)
        return TrialOutcome(ok=False, error=f"{type(error).__name__}: {error}")


def _stop_server_of_cancelled(trial_id: int) -> None:
    """A task that finds its trial cancelled was sent after the previous trial, which may have left the
    server running for it (keep_server): stop that server, unless a trial now runs on the host."""
    trial = Trial.objects.filter(pk=trial_id, status=Trial.Status.CANCELLED).first()
    if trial is None or trial.host_id is None:
        return
    if Trial.objects.filter(host_id=trial.host_id, status=Trial.Status.RUNNING).exists():
        return
    spec = trial_spec(trial)
    try:
        with connect(spec.db_host) as db:
            stop_kept_server(spec, db)
    except Exception:
        logger.warning("could not stop the server kept for cancelled trial %s", trial_id, exc_info=True)


def _add_profile(outcome: TrialOutcome, profiled: TrialOutcome) -> None:
    """perf runs in an extra, unreported run of the same point, so it never touches the measured TPS."""
    if "perf_folded" in profiled.artifacts:
        outcome.artifacts["perf_folded"] = profiled.artifacts["perf_folded"]
    outcome.notes.append("perf: from an extra profiled run" if profiled.ok else f"perf run failed: {profiled.error}")


def trial_spec(trial: Trial) -> TrialSpec:
    """The plain data the engine runs from; a retried attempt starts from fresh data and reads the facts again."""
    trial = Trial.objects.select_related("study__db_host", "study__client_host", "build", "scenario").get(pk=trial.pk)
    study: Study = trial.study
    scenario = trial.scenario
    known_facts = {} if trial.attempts > 1 else _known_facts(trial)
    return TrialSpec(
        trial_id=trial.pk,
        study_id=study.pk,
        db_host=host_spec(study.db_host),
        client_host=host_spec(study.client_host or study.db_host),
        build=build_spec(trial.build),
        scenario=scenario_spec(scenario),
        clients=trial.clients,
        threads=trial.threads,
        duration_s=study.duration_s,
        scale=study.scale,
        fillfactor=scenario.data_fillfactor(study.fillfactor),
        pg_settings={name: str(value) for name, value in study.pg_settings.items()},
        collect_sar=study.collect_sar,
        collect_perf=study.collect_perf,
        collect_wait_events=study.collect_wait_events,
        reset_data=trial.reset_data or trial.attempts > 1,
        keep_server=_next_takes_the_server(trial),
        collect_facts=not known_facts,
        known_facts=known_facts,
    )


def _next_takes_the_server(trial: Trial) -> bool:
    """Whether the trial study_continue sends after this one (the first pending by position) runs on the
    same cluster (build, scenario and fillfactor; the study fixes host, scale and settings) with no data reset, so
    it can take this trial's server over. A reset restarts the server anyway (a restore needs it
    stopped; fresh pgbench -i data leaves nothing warm to keep), and a retry (attempts > 0) resets."""
    following = (
        Trial.objects.filter(study_id=trial.study_id, status=Trial.Status.PENDING)
        .exclude(pk=trial.pk)
        .select_related("scenario")
        .order_by("position")
        .first()
    )
    if following is None or following.reset_data or following.attempts > 0:
        return False
    if (following.build_id, following.scenario_id) != (trial.build_id, trial.scenario_id):
        return False
    chosen = trial.study.fillfactor
    return following.scenario.data_fillfactor(chosen) == trial.scenario.data_fillfactor(chosen)


def _known_facts(trial: Trial) -> dict[str, object]:
    """The facts the study's latest trial read (the host's facts are read once per study and host)."""
    facts = (
        Trial.objects.filter(study_id=trial.study_id, published=False)
        .exclude(pk=trial.pk)
        .exclude(host_facts={})
        .order_by(F("finished_at").desc(nulls_last=True))
        .values_list("host_facts", flat=True)
        .first()
    )
    return dict(facts) if isinstance(facts, dict) else {}


def build_spec(build: Any) -> BuildSpec:
    return BuildSpec(
        name=build.name, kind=build.kind, version=build.version, bin_dir=build.bin_dir, archive_path=build.archive_path
    )


def scenario_spec(scenario: Any) -> ScenarioSpec:
    return ScenarioSpec(
        slug=scenario.slug,
        builtin=scenario.builtin,
        script=scenario.script,
        reset=scenario.reset,
        prewarm=scenario.prewarm,
        checkpoint_vacuum=scenario.checkpoint_vacuum,
        protocol=scenario.protocol,
    )


def host_spec(host: Any) -> HostSpec:
    return HostSpec(
        name=host.name,
        address=host.address,
        port=host.port,
        username=host.username,
        key_path=host.key_path,
        host_key=host.host_key,
        work_dir=host.work_dir,
    )
