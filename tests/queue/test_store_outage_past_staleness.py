"""The store goes away for longer than a trial's heartbeat may be silent, and pgbench ends meanwhile: the silence the
outage caused is not counted, so beat, sweeping every second once the store is back, does not put the trial back
before its worker's heartbeat and outcome get through (the fault run put it back 0.4 s after the store returned, and
pgbench ran again). See docs/RELIABILITY.md.
"""

import pytest

from benchdash.studies.models import Artifact, Attempt, Trial
from tests.queue.support import store_outage_while_a_trial_runs

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The heartbeat tries again every 5 s at most while the store is away, beat sweeps every second: once the store is
# back, a sweep comes well before the heartbeat, and finds it older than STALE_AFTER_S, which the outage outlasts.
HEARTBEAT_S, STALE_AFTER_S, REQUEUE_EVERY_S, OUTAGE_S = 5, 8, 1, 14
# pgbench ends inside the outage.
DURATION_S = 8


def test_a_store_outage_longer_than_the_staleness_puts_no_trial_back(
    client, member, presets, celery_processes, local_target, installed_build
):
    celery_processes.env = {
        "BENCHDASH_TRIAL_HEARTBEAT_S": str(HEARTBEAT_S),
        "BENCHDASH_TRIAL_STALE_AFTER_S": str(STALE_AFTER_S),
        "BENCHDASH_REQUEUE_EVERY": str(REQUEUE_EVERY_S),
    }
    celery_processes.beat()
    _, trial = store_outage_while_a_trial_runs(
        client,
        celery_processes,
        local_target,
        installed_build,
        duration=str(DURATION_S),
        worker="patient",
        outage_s=OUTAGE_S,
    )

    log = celery_processes.log("patient")
    assert list(Attempt.objects.filter(trial=trial).values_list("number", "result")) == [(1, "succeeded")], log[-3000:]
    assert (trial.status, trial.attempts, trial.error) == (Trial.Status.SUCCEEDED, 1, "")
    assert Artifact.objects.filter(trial=trial, kind="pgbench_stdout").count() == 1
    assert "heartbeat failed" in log
    assert "could not look for lost trials" in log  # beat's sweeps met the outage
