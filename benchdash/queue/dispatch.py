"""Sending a trial's task to the broker, when the store says a trial is due (studies.lifecycle.signals.trial_due).

When the broker cannot take one (Redis down or restarting), nothing is lost: the trial is marked as having no task
on its way (its heartbeat emptied), and beat sends it on its first run once the broker answers (trials_orphaned).

A trial's task goes to its DB host's queue (host_queue): only the workers that serve that host take it.
"""

import logging
from collections.abc import Callable
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import host_queue
from benchdash.queue.tasks import run_study_trial
from benchdash.store_clock import due_in
from benchdash.studies.models import Trial

logger = logging.getLogger(__name__)


def send_trial_task(
    *, trial_id: int, host_name: str | None, countdown: int, report: Callable[[bool], object] | None, **_: Any
) -> None:
    """The receiver of trial_due: send the trial's task to its host's queue; report whether the broker took it."""
    queue = host_queue(host_name) if host_name else None
    try:
        # No result is kept: the store holds every outcome, and a result would be one more Redis write.
        # The countdown on the store's clock (benchdash/store_clock.py), not as Celery's eta from this worker's clock.
        due = {"due_at": due_in(countdown)} if countdown else {}
        run_study_trial.apply_async((trial_id,), due, queue=queue, ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take trial %s (%s); beat sends it once it answers", trial_id, error)
        Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=None)
        sent = False
    else:
        sent = True
    if report is not None:
        report(sent)
