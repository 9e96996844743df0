"""Sending a trial's task to the broker, once the transaction that chose the trial commits.

The store says what must run; a message only says "now". When the broker cannot take one (Redis
down or restarting), nothing is lost: the trial is marked as having no task on its way (its
heartbeat emptied), and beat sends it on its first run once the broker answers (trials_orphaned).
"""

import logging
from collections.abc import Callable
from functools import partial

from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import RUN_TRIAL_TASK, app
from benchdash.studies.models import Trial

logger = logging.getLogger(__name__)


def send_trial_after_commit(
    trial_id: int, *, countdown: int = 0, report: Callable[[bool], object] | None = None
) -> None:
    """Mark the pending trial as having a task on its way, and send that task after commit.

    report, if given, hears whether the broker took it (only when the transaction commits).
    """
    Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=timezone.now())
    transaction.on_commit(partial(_send, trial_id, countdown, report or _ignore))


def _send(trial_id: int, countdown: int, report: Callable[[bool], object]) -> None:
    try:
        # No result is kept: the store holds every outcome, and a result would be one more Redis write.
        app.send_task(RUN_TRIAL_TASK, (trial_id,), countdown=countdown, ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take trial %s (%s); beat sends it once it answers", trial_id, error)
        Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=None)
        report(False)
        return
    report(True)


def _ignore(sent: bool) -> None:
    """A report nobody asked for."""
