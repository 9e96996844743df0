"""Two workers on the same host's queue, and one of them killed with SIGKILL mid-trial: the one running the trial
(the other one runs it again once beat puts it back) or the idle one (nothing changes). Either way the study
finishes with every trial once, and no two attempts on the host overlap in time (the lost one aside: it has no
end, and the attempt after it began by stopping what it left running)."""

import itertools

import pytest

from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.support import attempt_history, queue_reference_study_and_wait_for_pgbench, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("killed", ["running", "idle"])
def test_either_of_two_workers_on_a_host_s_queue_killed_mid_trial_loses_nothing(
    client, member, presets, celery_processes, local_target, installed_build, killed
):
    celery_processes.env = {"BENCHDASH_WORKER_HOSTS": local_target.name}
    workers = {"left": celery_processes.worker("left")}
    _, study, workers["right"], _ = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration="6", worker="right"
    )
    # The kill comes as soon as pgbench runs, and beat (which puts the lost trial back) only after it: started
    # first, beat took the seconds of a loaded machine while the 6 s pgbench ran out (seen with four xdist workers).
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    runner = interrupted.worker.split("@")[0]
    victim = runner if killed == "running" else next(name for name in workers if name != runner)
    celery_processes.kill(workers[victim])
    celery_processes.beat()
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 180, "the study to finish")

    study.refresh_from_db()
    interrupted.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    attempts = list(Attempt.objects.filter(trial__study=study).order_by("started_at"))
    survivor = next(name for name in workers if name != victim)
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps > 0 for trial in trials)
    assert interrupted.attempts == (2 if killed == "running" else 1)
    if killed == "running":
        assert interrupted.worker.startswith(f"{survivor}@")
    assert [trial.attempts for trial in trials if trial.pk != interrupted.pk] == [1]
    assert all(
        attempt.worker.startswith(f"{survivor}@") for attempt in attempts if attempt.started_at > interrupted.started_at
    )
    # A lost attempt has no end (its worker never came back); the next one began by stopping what it left running.
    ended = [attempt for attempt in attempts if attempt.result != Attempt.Result.LOST]
    assert [attempt.finished_at is None for attempt in attempts].count(True) == (1 if killed == "running" else 0)
    assert [(one.pk, two.pk) for one, two in itertools.pairwise(ended) if two.started_at < one.finished_at] == []
