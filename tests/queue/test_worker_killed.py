"""A worker killed (SIGKILL) in the middle of a trial loses nothing: beat puts the trial back, another
worker runs it again from a clean target, and the study finishes with no trial lost or stored twice."""

import pytest

from benchdash.studies.models import Artifact, Study, Trial
from tests.queue.support import process_alive, queue_reference_study_and_wait_for_pgbench, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_it_resumes_after_the_worker_is_killed_mid_trial(
    client, member, presets, celery_processes, local_target, installed_build
):
    _, study, first_worker, leftover = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration="10", worker="doomed"
    )
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    celery_processes.kill(first_worker)
    assert process_alive(leftover)  # pgbench runs in its own process group: the killed worker left it behind

    celery_processes.beat()
    celery_processes.worker("rescuer")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 180, "the study to finish")

    study.refresh_from_db()
    interrupted.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    assert study.status == Study.Status.DONE, [trial.error for trial in trials]
    assert [trial.position for trial in trials] == [0, 1]
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps > 0 for trial in trials)
    assert interrupted.attempts == 2 and interrupted.worker.startswith("rescuer@")
    assert "stopped leftovers" in interrupted.notes and "pgbench" in interrupted.notes
    assert [trial.attempts for trial in trials if trial.pk != interrupted.pk] == [1]
    assert Artifact.objects.filter(trial__study=study, kind="pgbench_stdout").count() == 2
    assert not process_alive(leftover)
