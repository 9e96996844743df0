"""Celery tasks: the glue between the store and the engine, and the only workers/ module that imports
Django or benchdash.

One task runs one trial, then sends the task of the next one, so that no task lives longer than
TRIAL_TIME_LIMIT, which stays well under the broker's visibility timeout (Redis hands an
unacknowledged task to a second worker after that timeout). The work itself is elsewhere: the store's
side in benchdash.studies (services, specs), the target's in workers.attempt.
"""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections, connection

from benchdash.celery import REQUEUE_TASK, RUN_TRIAL_TASK
from benchdash.studies import services
from benchdash.studies.specs import cancelled_trial_spec, trial_spec
from workers.attempt import run_attempt, stop_server_kept_for

logger = logging.getLogger(__name__)

if settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] < settings.TRIAL_TIME_LIMIT * 2:
    raise ImproperlyConfigured("BENCHDASH_TRIAL_TIME_LIMIT must stay under half of CELERY_VISIBILITY_TIMEOUT")


@shared_task(
    bind=True,
    name=RUN_TRIAL_TASK,
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
        if (kept := cancelled_trial_spec(trial_id)) is not None:
            stop_server_kept_for(kept)
        return "not pending"
    cancelled = partial(services.study_is_cancelled, study_id=trial.study_id)
    with heartbeat(trial.pk):
        outcome = run_attempt(trial_spec(trial), should_cancel=cancelled)
    trial = services.trial_finish(trial=trial, outcome=outcome)
    services.study_continue(study_id=trial.study_id)
    logger.info("trial %s of study %s: %s %s", trial.pk, trial.study_id, trial.status, trial.tps)
    return str(trial.status)


@shared_task(name=REQUEUE_TASK)
def requeue_orphaned_studies() -> list[int]:
    """Beat: put back trials whose worker vanished and resend studies with no task in flight."""
    close_old_connections()
    resent = services.trials_orphaned()
    if resent:
        logger.warning("resent orphaned trials: %s", resent)
    return resent


@contextmanager
def heartbeat(trial_id: int) -> Iterator[None]:
    """Write the trial's heartbeat every TRIAL_HEARTBEAT_S while the block runs, from a thread of its own."""
    stop = threading.Event()
    beat = threading.Thread(target=_beat, args=(trial_id, stop), daemon=True)
    beat.start()
    try:
        yield
    finally:
        stop.set()
        beat.join(timeout=5)


def _beat(trial_id: int, stop: threading.Event) -> None:
    try:
        while not stop.wait(settings.TRIAL_HEARTBEAT_S):
            services.trial_heartbeat(trial_id=trial_id)
    finally:
        connection.close()
