"""A worker killed (SIGKILL) in the middle of a trial loses nothing: beat puts the trial back, another
worker runs it again from a clean target, and the study finishes with no trial lost or stored twice."""

import pytest

from benchdash.studies.models import Study, Trial
from tests.queue.support import (
    process_alive,
    queue_reference_study_and_wait_for_pgbench,
    rescue_and_wait_for_the_study,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The killed attempt's pgbench must outlive the rescue (stale heartbeat + beat + a worker's start, 8 s when quiet and
# well past 10 s under load) for the rescuer to find it running; the retry and the other trial need not be long.
KILLED_RUN_S, LATER_RUNS_S = 90, 2


def test_it_resumes_after_the_worker_is_killed_mid_trial(
    client, member, presets, celery_processes, local_target, installed_build
):
    _, study, first_worker, leftover = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration=str(KILLED_RUN_S), worker="doomed"
    )
    # Each attempt reads the study's duration when it starts: the later ones run short.
    Study.objects.filter(pk=study.pk).update(duration_s=LATER_RUNS_S)
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    celery_processes.kill(first_worker)
    assert process_alive(leftover)  # pgbench runs in its own process group: the killed worker left it behind

    trials = rescue_and_wait_for_the_study(celery_processes, study, interrupted, timeout=180)
    assert [trial.position for trial in trials] == [0, 1]
    assert interrupted.attempts == 2
    assert "stopped leftovers" in interrupted.notes and "pgbench" in interrupted.notes
    assert not process_alive(leftover)
