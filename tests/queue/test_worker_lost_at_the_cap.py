"""A trial that loses its worker on every attempt (a worker killed with SIGKILL mid-run, each time) is tried
BENCHDASH_TRIAL_MAX_ATTEMPTS times, then fails with the reason; the study goes on to its next trial and ends.
Before issue 14 beat put a lost trial back with no cap: a trial that killed its worker looped for ever."""

from collections.abc import Callable

import pytest

from benchdash.studies.models import Attempt, FailureKind, Study, Trial
from tests.queue.conftest import FAST_CLOCKS
from tests.queue.support import (
    own_work_dir,
    pgbench_pid,
    process_alive,
    queue_reference_study_and_wait_for_pgbench,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CAP = int(FAST_CLOCKS["BENCHDASH_TRIAL_MAX_ATTEMPTS"])


def rerun_pgbench(trial: Trial, attempt: int, work_dir: str, earlier_pid: int) -> Callable[[], int | None]:
    """The pgbench pid of this attempt of the trial, once it runs."""
    running = Trial.objects.filter(pk=trial.pk, status=Trial.Status.RUNNING, attempts=attempt)

    def pid() -> int | None:
        found = pgbench_pid(work_dir)
        return found if found not in (None, earlier_pid) and running.exists() else None

    return pid


def test_a_trial_whose_worker_is_lost_on_every_attempt_fails_at_the_cap_and_the_study_ends(
    client, member, presets, celery_processes, local_target, installed_build
):
    host, study, worker, pid = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration="8", worker="doomed-1"
    )
    doomed = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    # Each worker is killed as soon as its attempt's pgbench runs, beat started only after the first kill: started
    # before it, beat took so long on a loaded machine that the first trial's 8 s pgbench ended, the worker went on
    # to the next trial and lost that one instead.
    celery_processes.kill(worker)
    celery_processes.beat()
    for attempt in range(2, CAP + 1):
        worker = celery_processes.worker(f"doomed-{attempt}")
        pid = wait_for(rerun_pgbench(doomed, attempt, own_work_dir(host), pid), 90, f"attempt {attempt}'s pgbench")
        celery_processes.kill(worker)  # the last attempt's worker is lost too
    celery_processes.worker("survivor")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 180, "the study to end")

    study.refresh_from_db()
    doomed.refresh_from_db()
    others = list(study.trials.exclude(pk=doomed.pk))
    results = list(Attempt.objects.filter(trial=doomed).order_by("number").values_list("number", "result"))
    assert study.status == Study.Status.FAILED
    assert (doomed.status, doomed.attempts) == (Trial.Status.FAILED, CAP)
    assert doomed.error.startswith(f"attempt {CAP}: worker lost (no heartbeat for")
    assert doomed.failure_kind == FailureKind.WORKER_LOST
    assert results == [(number, Attempt.Result.LOST) for number in range(1, CAP + 1)]
    assert [(trial.status, trial.attempts) for trial in others] == [(Trial.Status.SUCCEEDED, 1)]
    assert not process_alive(pid)
