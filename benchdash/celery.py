"""The Celery application: configuration comes from Django settings (CELERY_*).

Tasks are named here and sent by name, so that the store's side (benchdash.studies.services) never
imports the glue that defines them (workers/tasks.py).

Routing: a trial's task goes to its DB host's queue, `host.<host name>`; a worker consumes the queues of
the hosts it serves (benchdash/worker_queues.py), and every worker the default queue `celery`, where
beat's task goes.
"""

import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchdash.settings")

RUN_TRIAL_TASK = "workers.tasks.run_study_trial"
REQUEUE_TASK = "workers.tasks.requeue_orphaned_studies"
NOISE_CHECK_TASK = "workers.tasks.check_host_noise"
HOST_QUEUE_PREFIX = "host."

app = Celery("benchdash")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"])


@app.on_after_configure.connect
def schedule_requeue(sender: Celery, **kwargs: Any) -> None:
    from django.conf import settings

    sender.add_periodic_task(settings.REQUEUE_EVERY_S, sender.signature(REQUEUE_TASK), name="requeue-orphaned-studies")


def host_queue(host_name: str) -> str:
    """The queue of a DB host's trials: only the workers that serve the host consume it."""
    return f"{HOST_QUEUE_PREFIX}{host_name}"
