"""A worker's pool process killed (SIGKILL) mid-trial while beat is down and the stale threshold is far off: the
worker's main process notices at once (billiard's WorkerLostError), stops what the attempt left running on the target
(the server, pgbench, the wait-events loop), and puts the trial back, which runs again. Before, the trial stayed
"running" until a sweep found its heartbeat stale (3 minutes in the fault run), its server and wait-events loop still
running on the target. See docs/RELIABILITY.md."""

import os
import re
import signal
from pathlib import Path

import pytest

from benchdash.queue.lost_child import LOST_WHY
from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.support import (
    attempt_history,
    background_pid,
    own_work_dir,
    process_alive,
    queue_reference_study_and_wait_for_pgbench,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Far beyond the test's waits: no sweep can be what puts the trial back.
STALE_AFTER_S = 600
STOPPED_WITHIN_S = 20
# The recovery stops the lost attempt's pgbench within a second of the kill (seconds on a loaded machine): long before
# a run of RUN_S would end on its own, so what stops it is the recovery (its log names it). The trial runs again
# whole, and the study's other trial too: every second here counts three times.
RUN_S = 8


def pool_process(worker_pid: int) -> int:
    (child,) = Path(f"/proc/{worker_pid}/task/{worker_pid}/children").read_text().split()
    return int(child)


def postmaster_pids(work_dir: str) -> list[int]:
    pid_files = Path(work_dir, "clusters").glob("*/data/postmaster.pid")
    return [int(path.read_text().split()[0]) for path in pid_files]


def test_a_lost_pool_process_is_noticed_at_once_and_what_it_left_is_stopped(
    client, member, presets, celery_processes, local_target, installed_build
):
    celery_processes.env = {"BENCHDASH_TRIAL_STALE_AFTER_S": str(STALE_AFTER_S)}
    host, study, worker, pgbench = queue_reference_study_and_wait_for_pgbench(
        client,
        celery_processes,
        local_target,
        installed_build,
        duration=str(RUN_S),
        worker="bereaved",
        collect_wait_events="on",
    )
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    wait_events = wait_for(lambda: background_pid(own_work_dir(host), "wait_events"), 30, "the wait-events loop")
    (server,) = postmaster_pids(own_work_dir(host))

    os.kill(pool_process(worker.pid), signal.SIGKILL)

    left = [pgbench, wait_events, server]
    wait_for(lambda: not any(map(process_alive, left)), STOPPED_WITHIN_S, "what the lost attempt left to stop")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    study.refresh_from_db()
    interrupted.refresh_from_db()
    log = celery_processes.log("bereaved")
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert list(Attempt.objects.filter(trial=interrupted).values_list("number", "result", "error")) == [
        (1, "lost", LOST_WHY),
        (2, "succeeded", ""),
    ]
    assert [trial.attempts for trial in study.trials.exclude(pk=interrupted.pk)] == [1]
    (recovered,) = re.findall(r"attempt 1 lost with its pool process; stopped (.*)", log)
    # The recovery stopped them, not the next attempt (which notes what it stops as it begins).
    assert "'pgbench'" in recovered and "'wait_events'" in recovered and "/clusters/" in recovered
    assert "stopped leftovers" not in interrupted.notes
    assert worker.poll() is None
