"""Which DB hosts' trials a worker takes: the queues `host.<name>` it consumes, besides the default one.

A worker started with BENCHDASH_WORKER_HOSTS=a,b serves the hosts a and b only: the ones its machine can
reach (deploy/SCALE-OUT.md). Without it a worker serves every registered host, and follows the hosts
registered later (it looks every BENCHDASH_WORKER_HOSTS_REFRESH_S seconds), as `make run`'s one worker does.
"""

import logging
import threading
import time
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection

from benchdash.celery import host_queue
from benchdash.inventory.models import Host

logger = logging.getLogger(__name__)


def serve_hosts(consumer: Any) -> None:
    """Runs in the worker's consumer as it gets ready: consume the queues of the hosts it serves."""
    if settings.WORKER_HOSTS:
        for name in settings.WORKER_HOSTS:
            consumer.add_task_queue(host_queue(name))
        logger.info("serving the hosts %s", ", ".join(settings.WORKER_HOSTS))
        return
    served: set[str] = set()
    for name in _new_hosts(served):
        consumer.add_task_queue(host_queue(name))
    follower = threading.Thread(target=_follow_hosts, args=(consumer, served), daemon=True, name="host-queues")
    follower.start()


def _follow_hosts(consumer: Any, served: set[str]) -> None:
    """From a thread of its own: the consumer's loop adds the queues (call_soon), never this thread."""
    while True:
        time.sleep(settings.WORKER_HOSTS_REFRESH_S)
        for name in _new_hosts(served):
            consumer.call_soon(consumer.add_task_queue, host_queue(name))


def _new_hosts(served: set[str]) -> list[str]:
    """Registered hosts not in served yet (added to it); none while the store cannot tell."""
    close_old_connections()
    try:
        names = set(Host.objects.values_list("name", flat=True))
    except DatabaseError as error:
        connection.close()
        logger.warning("could not read the registered hosts (%s); trying again later", error)
        return []
    new = sorted(names - served)
    served.update(new)
    return new
