"""The Celery application: configuration comes from Django settings (CELERY_*); the tasks are in benchdash/queue/.

Routing: a trial's task goes to its DB host's queue, `host.<host name>`; a worker consumes the queues of
the hosts it serves (benchdash/queue/worker_queues.py), and every worker the default queue `celery`, where
beat's task goes.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchdash.settings")

HOST_QUEUE_PREFIX = "host."

app = Celery("benchdash")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def host_queue(host_name: str) -> str:
    """The queue of a DB host's trials: only the workers that serve the host consume it."""
    return f"{HOST_QUEUE_PREFIX}{host_name}"
