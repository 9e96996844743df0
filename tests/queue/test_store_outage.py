"""The store goes away while a trial runs, and comes back: the heartbeat rides it out, the trial is stored once, and
no second attempt starts.

What the worker sees of a restart of the store's PostgreSQL is made on the shared server without restarting it
(others use it): support.store_outage. See docs/RELIABILITY.md.
"""

import time

import pytest

from benchdash.studies.models import Artifact, Attempt, Study, Trial
from tests.queue.support import queue_reference_study_and_wait_for_pgbench, store_outage, wait_for

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
    _, study, worker, _ = queue_reference_study_and_wait_for_pgbench(
        client,
        celery_processes,
        local_target,
        installed_build,
        duration="16",
        worker="steady",
        concurrency=2,
        clients="1",
    )
    trial = Trial.objects.get(study=study, status=Trial.Status.RUNNING)

    outage_started = time.monotonic()
    store_outage(OUTAGE_S)
    outage_ended = time.monotonic()
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    trial.refresh_from_db()
    study.refresh_from_db()
    log = celery_processes.log("steady")
    assert outage_ended - outage_started >= OUTAGE_S
    assert "heartbeat failed" in log  # the outage reached the running trial's heartbeat
    assert (trial.status, trial.attempts, trial.error) == (Trial.Status.SUCCEEDED, 1, ""), log[-3000:]
    assert list(Attempt.objects.filter(trial=trial).values_list("number", "result")) == [(1, "succeeded")]
    assert Artifact.objects.filter(trial=trial, kind="pgbench_stdout").count() == 1
    assert study.status == Study.Status.DONE
    assert worker.poll() is None
