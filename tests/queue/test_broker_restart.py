"""The worker outlives its broker: Redis restarted, with and without its data, while a trial runs. The same worker
process goes on, finishes the trial, and takes the next one within 30 s of Redis being back.

The worker runs 2 processes, as deploy/Procfile and the systemd unit start it: with one busy and one free, it
holds an unacknowledged task while it waits on Redis for more, which is what used to end it (benchdash/broker.py).
"""

import pytest
from django.utils import timezone

from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.support import queue_reference_study_and_wait_for_pgbench, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TAKES_WORK_WITHIN_S = 30


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
    assert study.status == Study.Status.DONE, [trial.error for trial in trials]
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 2
    assert {trial.worker for trial in trials} == {running.worker}
    assert (next_claim - back_at).total_seconds() < TAKES_WORK_WITHIN_S
    assert "Unrecoverable error" not in own_redis_processes.log("survivor")
