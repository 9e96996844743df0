"""Beat down, two workers on a host's queue, and the one running a trial killed (SIGKILL, its whole group) long after
the idle one started: the idle one's own periodic sweep puts the stale trial back and runs it. Before, a worker looked
for lost trials once, as it got ready, and an idle worker that was already up never took the trial over."""

import time

import pytest

from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.conftest import FAST_CLOCKS
from tests.queue.support import attempt_history, process_alive, queue_reference_study_and_wait_for_pgbench, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Past the one look a worker took as it got ready (stale threshold and one heartbeat after it), before this change.
IDLE_FOR_S = int(FAST_CLOCKS["BENCHDASH_TRIAL_STALE_AFTER_S"]) + int(FAST_CLOCKS["BENCHDASH_TRIAL_HEARTBEAT_S"]) + 2
# Past the idle worker's start and IDLE_FOR_S, with seconds to spare on a loaded machine; the trial runs twice.
RUN_S = IDLE_FOR_S + 7


def test_an_idle_worker_takes_over_a_stale_trial_with_beat_down(
    client, member, presets, celery_processes, local_target, installed_build
):
    _, study, busy, pgbench = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration=str(RUN_S), worker="busy", clients="1"
    )
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    celery_processes.worker("idle")
    time.sleep(IDLE_FOR_S)
    assert process_alive(pgbench), "the trial ended before its worker could be killed: a longer run is needed"
    celery_processes.kill(busy)
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to finish")

    study.refresh_from_db()
    interrupted.refresh_from_db()
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert list(Attempt.objects.filter(trial=interrupted).values_list("number", "result")) == [
        (1, "lost"),
        (2, "succeeded"),
    ]
    assert interrupted.worker.startswith("idle@")
    assert "resent orphaned trials" in celery_processes.log("idle")
