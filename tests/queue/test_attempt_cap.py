"""One attempt cap on every path: a fault that fails every attempt after its claim, on the target (pgbench fails: not
a fault known to repeat, so it is retried), fails each trial after BENCHDASH_TRIAL_MAX_ATTEMPTS with the reason, and
the study goes on to its end; beat, running beside it, sends nothing past the cap either. (Storage that cannot keep
an outcome is known to repeat: it fails at once and stops the study, tests/queue/test_storage_full.py.)

The cap is the store's rule, enforced by the task's body: the tasks run in the test's process
(tests/queue/in_process.py), beat's sweep sent through the broker beside them;
tests/queue/test_worker_lost_at_the_cap.py holds the cap against real workers lost on every attempt."""

import pytest
from django.urls import reverse

from benchdash.studies.models import Attempt, Scenario, Study, Trial
from tests.queue.conftest import FAST_CLOCKS
from tests.queue.support import form_data, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CAP = int(FAST_CLOCKS["BENCHDASH_TRIAL_MAX_ATTEMPTS"])


def test_a_fault_after_every_claim_fails_each_trial_at_the_cap_and_the_study_ends(
    client, member, tasks_in_process, local_target, installed_build
):
    broken = Scenario.objects.create(
        slug="broken", name="broken", script="SELECT no_such_column FROM pgbench_branches;\n", prewarm="none"
    )
    tasks = tasks_in_process(beat=True)
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[broken])
    client.post(reverse("studies:new"), {**data, "collect_sar": "", "collect_wait_events": ""})
    study = Study.objects.get(title="queue test")

    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 180, "the study to end")

    study.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    assert study.status == Study.Status.FAILED and study.finished_at is not None
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.FAILED, CAP)] * 2
    assert all(trial.error.startswith(f"attempt {CAP}: ") and "no_such_column" in trial.error for trial in trials), [
        trial.error for trial in trials
    ]
    results = {trial.pk: list(trial.attempt_log.values_list("number", "result")) for trial in trials}
    each = [(number, "retried") for number in range(1, CAP)] + [(CAP, "failed")]
    assert results == {trial.pk: each for trial in trials}
    assert not Attempt.objects.filter(trial__study=study, number__gt=CAP).exists()
    assert tasks.ran("benchdash.queue.tasks.requeue_orphaned_studies"), "beat's sweep never ran beside the attempts"
