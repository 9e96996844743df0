"""Sending a trial's task to the broker, once the transaction that chose the trial commits.

The store says what must run; a message only says "now". When the broker cannot take one (Redis
down or restarting), nothing is lost: the trial is marked as having no task on its way (its
heartbeat emptied), and beat sends it on its first run once the broker answers (trials_orphaned).

A trial's task goes to its DB host's queue (host_queue): only the workers that serve that host take it.

A broker that lost its data (Redis restarted without it, or flushed) lost the tasks it held: beat asks
broker_emptied on every run and then sends again the next trial of every study with none running.
"""

import logging
from collections.abc import Callable
from functools import partial

import redis
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import RUN_TRIAL_TASK, app, host_queue
from benchdash.studies.models import Trial

logger = logging.getLogger(__name__)


def send_trial_after_commit(
    trial_id: int, *, countdown: int = 0, report: Callable[[bool], object] | None = None
) -> None:
    """Mark the pending trial as having a task on its way, and send that task after commit.

    report, if given, hears whether the broker took it (only when the transaction commits).
    """
    Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=timezone.now())
    host_name = Trial.objects.filter(pk=trial_id).values_list("host__name", flat=True).first()
    queue = host_queue(host_name) if host_name else None
    transaction.on_commit(partial(_send, trial_id, queue, countdown, report or _ignore))


def _send(trial_id: int, queue: str | None, countdown: int, report: Callable[[bool], object]) -> None:
    try:
        # No result is kept: the store holds every outcome, and a result would be one more Redis write.
        app.send_task(RUN_TRIAL_TASK, (trial_id,), queue=queue, countdown=countdown, ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take trial %s (%s); beat sends it once it answers", trial_id, error)
        Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=None)
        report(False)
        return
    report(True)


def _ignore(sent: bool) -> None:
    """A report nobody asked for."""


# A key beat keeps in the broker's database: gone means everything the broker held is gone.
BROKER_MARK = "benchdash:broker-kept"


def broker_emptied() -> bool:
    """True when the broker's data is gone since beat last looked (and the first time); marks it again.
    False while the broker cannot be reached: nothing could be sent then anyway."""
    try:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=5, socket_connect_timeout=5)
        return bool(client.set(BROKER_MARK, timezone.now().isoformat(), nx=True))
    except redis.RedisError as error:
        logger.warning("could not ask the broker whether it kept its data: %s", error)
        return False
