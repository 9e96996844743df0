"""A worker killed mid-trial while beat is down: the worker that starts next puts the lost trial back itself once its
heartbeat is stale, so the study does not wait for beat to return (beat stays the backstop)."""

import pytest

from benchdash.studies.models import Trial
from tests.queue.support import queue_reference_study_and_wait_for_pgbench, rescue_and_wait_for_the_study

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_next_worker_puts_back_a_trial_lost_while_beat_was_down(
    client, member, presets, celery_processes, local_target, installed_build
):
    _, study, first_worker, _ = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration="4", worker="doomed"
    )
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    celery_processes.kill(first_worker)

    trials = rescue_and_wait_for_the_study(celery_processes, study, interrupted, timeout=120, with_beat=False)

    assert interrupted.attempts == 2 and "worker lost" in interrupted.attempt_log.get(number=1).error
    assert [trial.position for trial in trials] == [0, 1]
    assert "resent orphaned trials" in celery_processes.log("rescuer")
