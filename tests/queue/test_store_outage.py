"""The store goes away while a trial runs, and comes back: the heartbeat rides it out, the trial is stored once, and
no second attempt starts.

What the worker sees of a restart of the store's PostgreSQL is made on the shared server without restarting it
(others use it): support.store_outage. See docs/RELIABILITY.md.
"""

import pytest

from benchdash.studies.models import Artifact, Attempt, Study, Trial
from tests.queue.support import store_outage_while_a_trial_runs

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

OUTAGE_S = 5
# Beat would put back a trial whose heartbeat is older than this: more than the outage, less than the run left
# after it, so that a heartbeat that died with the outage gets its trial put back before the run ends.
STALE_AFTER_S = 10


def test_a_trial_rides_out_a_store_outage_and_is_stored_once(
    client, member, presets, celery_processes, local_target, installed_build
):
    celery_processes.env = {"BENCHDASH_TRIAL_STALE_AFTER_S": str(STALE_AFTER_S)}
    celery_processes.beat()
    study, trial = store_outage_while_a_trial_runs(
        client, celery_processes, local_target, installed_build, duration="16", worker="steady", outage_s=OUTAGE_S
    )

    log = celery_processes.log("steady")
    assert "heartbeat failed" in log  # the outage reached the running trial's heartbeat
    assert (trial.status, trial.attempts, trial.error) == (Trial.Status.SUCCEEDED, 1, ""), log[-3000:]
    assert list(Attempt.objects.filter(trial=trial).values_list("number", "result")) == [(1, "succeeded")]
    assert Artifact.objects.filter(trial=trial, kind="pgbench_stdout").count() == 1
    assert study.status == Study.Status.DONE
    assert all(process.poll() is None for process in celery_processes.started)  # the worker and beat outlived it
