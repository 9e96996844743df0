"""The worker outlives its broker: Redis restarted, with and without its data, while a trial runs. The same worker
process goes on, finishes the trial, and takes the next one within 30 s of Redis being back. And a study waiting in
the queue when Redis restarts without its data is sent again by beat's next run.

The worker runs 2 processes, as deploy/Procfile and the systemd unit start it: with one busy and one free, it
holds an unacknowledged task while it waits on Redis for more, which is what used to end it (benchdash/queue/broker.py).
"""

import json
import time

import pytest
import redis
from django.urls import reverse
from django.utils import timezone

from benchdash.celery import host_queue
from benchdash.queue.broker_mark import BROKER_MARK
from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.support import (
    attempt_history,
    form_data,
    queue_reference_study_and_wait_for_pgbench,
    register_build,
    register_host,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TAKES_WORK_WITHIN_S = 30
# The worker that runs beat's task tries Redis again 2 s after losing it, then 4 s...
WORKER_RECONNECT_S = 4


@pytest.mark.parametrize("keep_data", [True, False], ids=["with-its-data", "without-its-data"])
def test_the_same_worker_takes_work_again_after_redis_restarts_under_a_running_trial(
    client, member, presets, redis_server, own_redis_processes, local_target, installed_build, keep_data
):
    _, study, worker, _ = queue_reference_study_and_wait_for_pgbench(
        client, own_redis_processes, local_target, installed_build, duration="6", worker="survivor", concurrency=2
    )
    running = Trial.objects.get(study=study, status=Trial.Status.RUNNING)

    redis_server.restart(keep_data=keep_data)
    back_at = timezone.now()
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    study.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    next_trial = next(trial for trial in trials if trial.pk != running.pk)
    next_claim = Attempt.objects.get(trial=next_trial).started_at
    print(f"the next trial was claimed {(next_claim - back_at).total_seconds():.1f} s after Redis was back")
    assert worker.poll() is None, own_redis_processes.log("survivor")[-3000:]
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 2
    assert {trial.worker for trial in trials} == {running.worker}
    assert (next_claim - back_at).total_seconds() < TAKES_WORK_WITHIN_S
    assert "Unrecoverable error" not in own_redis_processes.log("survivor")


BEAT_EVERY_S = 5


def task_ids(broker: redis.Redis, queue: str) -> set[str]:
    """The ids of the tasks waiting in a queue of the broker."""
    return {json.loads(message)["headers"]["id"] for message in broker.lrange(queue, 0, -1)}


def test_beat_sends_a_queued_study_s_trial_again_within_one_beat_interval_after_redis_lost_its_data(
    client, member, presets, redis_server, own_redis_processes, local_target, installed_build
):
    """The study waits in the queue (no worker serves its host yet) when Redis restarts without its data: its
    task is gone. Beat finds its mark gone from Redis and sends the trial again on its next run, not only once the
    trial's last send is BENCHDASH_TRIAL_STALE_AFTER_S old (here 300 s)."""
    host, build = register_host(local_target), register_build(installed_build)
    own_redis_processes.env = {
        "BENCHDASH_REQUEUE_EVERY": str(BEAT_EVERY_S),
        "BENCHDASH_TRIAL_STALE_AFTER_S": "300",
        "BENCHDASH_WORKER_HOSTS": "elsewhere",  # takes beat's task, not the study's
    }
    own_redis_processes.worker("beat-runner")
    own_redis_processes.beat()
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[presets["pgbench-select-only"]])
    client.post(reverse("studies:new"), {**data, "client_levels": "1", "collect_sar": "", "collect_wait_events": ""})
    study = Study.objects.get(title="queue test")
    broker = redis.Redis(port=redis_server.port)
    wait_for(lambda: broker.llen(host_queue(host.name)), 10, "the study's task in Redis")
    wait_for(lambda: broker.exists(BROKER_MARK), 3 * BEAT_EVERY_S, "beat to mark the broker")
    lost = task_ids(broker, host_queue(host.name))

    redis_server.restart(keep_data=False)
    back = time.monotonic()
    wait_for(lambda: task_ids(broker, host_queue(host.name)), 60, "the trial's task back in Redis", every=0.1)
    sent_again_after = time.monotonic() - back
    assert lost and task_ids(broker, host_queue(host.name)).isdisjoint(lost)  # sent again, not kept
    own_redis_processes.env = {"BENCHDASH_WORKER_HOSTS": host.name}
    own_redis_processes.worker("local-runner")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    study.refresh_from_db()
    print(f"the trial's task was back in Redis {sent_again_after:.1f} s after Redis restarted without its data")
    assert sent_again_after < BEAT_EVERY_S + WORKER_RECONNECT_S
    assert study.status == Study.Status.DONE
    assert [(trial.status, trial.attempts) for trial in study.trials.all()] == [(Trial.Status.SUCCEEDED, 1)]
