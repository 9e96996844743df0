"""A pool process lost under a trial (killed, out of memory) is noticed at once by its own worker, not when a sweep
finds the trial's heartbeat stale minutes later.

The worker's main process sees its pool process die: the trial task's request fails with billiard's WorkerLostError
(and, with acks_late and reject_on_worker_lost, its message goes back to the queue, where a claim turns it away while
the trial still runs). TrialRequest.on_failure then sends recover_lost_attempt to the trial's host queue, which stops
what the attempt left running on the target (server, pgbench, the wait-events loop) and puts the trial back.
"""

import logging
from functools import partial
from typing import Any

from billiard.einfo import ExceptionWithTraceback
from billiard.exceptions import WorkerLostError
from celery import shared_task
from celery.worker.request import Request
from django.db import close_old_connections

from benchdash.queue.heartbeat import AttemptWatch, heartbeat
from benchdash.store_retry import with_store_retry
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Trial
from workers.lost_attempt import stop_lost_attempt

logger = logging.getLogger(__name__)

LOST_WHY = "worker lost (its pool process died)"


class TrialRequest(Request):
    """run_study_trial's request, in the worker's main process."""

    def on_failure(self, exc_info: Any, send_failed_event: bool = True, return_ok: bool = False) -> None:
        super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)
        error = exc_info.exception
        if isinstance(error, ExceptionWithTraceback):
            error = error.exc
        if isinstance(error, WorkerLostError):
            send_recovery(self.args[0], self.hostname, self.delivery_info.get("routing_key"))


def send_recovery(trial_id: int, worker: str, queue: str | None) -> None:
    """From the main process, which must not wait on a target: the recovery runs as a task on the trial's host queue.
    A broker that cannot take it leaves the trial to the sweeps (its heartbeat goes stale)."""
    logger.warning("trial %s: its pool process died; stopping what it left and putting it back", trial_id)
    try:
        recover_lost_attempt.apply_async((trial_id, worker), queue=queue, ignore_result=True)
    except Exception:
        logger.exception("trial %s: could not send its recovery; the sweeps put it back once it is stale", trial_id)


@shared_task
def recover_lost_attempt(trial_id: int, worker: str) -> str:
    """Stop what the attempt that `worker` runs on trial_id left on its hosts, then put the trial back (failed at the
    cap) and send what comes next, waiting for a store that is away. The recovery beats for the lost attempt
    meanwhile, so no sweep puts it back while its leftovers are being stopped; nothing is done when the trial no
    longer runs under that worker."""
    close_old_connections()
    running = Trial.objects.filter(pk=trial_id, status=Trial.Status.RUNNING, worker=worker[:200])
    trial = with_store_retry(running.first, "find the lost attempt")
    if trial is None:
        return "nothing lost"
    with heartbeat(AttemptWatch(trial.pk, trial.attempts)):
        try:
            stopped = stop_lost_attempt(trial_spec(trial))
        except Exception:  # the next attempt stops what is left, as after any lost worker
            logger.warning("trial %s: could not stop what its lost attempt left", trial.pk, exc_info=True)
            stopped = []
    put_back = partial(services.trial_put_back_lost, trial_id=trial.pk, attempt=trial.attempts, why=LOST_WHY)
    if with_store_retry(put_back, "put the trial back"):
        next_on_host = partial(services.study_continue, study_id=trial.study_id, host_id=trial.host_id)
        with_store_retry(next_on_host, "send the next trial")
    logger.warning("trial %s: attempt %s lost with its pool process; stopped %s", trial.pk, trial.attempts, stopped)
    return "put back"
