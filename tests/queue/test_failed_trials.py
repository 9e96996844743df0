"""A trial whose pgbench fails is tried TRIAL_MAX_ATTEMPTS times, then marked failed with its reason and raw
output while the study goes on; `queue_study --wait` then exits 1; the page can run the failed trials again."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from benchdash.studies.models import Artifact, Scenario, Study, Trial
from tests.queue.support import paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def broken_scenario() -> Scenario:
    return Scenario.objects.create(
        slug="broken", name="broken", script="SELECT no_such_column FROM pgbench_branches;\n", prewarm="none"
    )


def test_a_failing_trial_is_retried_then_failed_and_can_be_run_again(
    client, member, presets, shared_worker, local_target, installed_build, broken_scenario
):
    register_host(local_target)
    build = register_build(installed_build)
    paced_reference_scenario()
    args = ["--builds", build.major, "--scenarios", "broken,paced-reference", "--clients", "1", "--repetitions", "1"]
    with pytest.raises(CommandError) as raised:
        call_command("queue_study", *args, "--duration", "2", "--wait", stdout=io.StringIO(), stderr=io.StringIO())
    assert raised.value.returncode == 1

    study = Study.objects.get(kind=Study.Kind.MEASURED)
    broken = study.trials.get(scenario=broken_scenario)
    good = study.trials.get(scenario__slug="paced-reference")
    assert study.status == Study.Status.FAILED
    assert (broken.status, broken.attempts, broken.tps) == (Trial.Status.FAILED, 2, None)
    assert broken.error.startswith("attempt 2: ")
    assert b"no_such_column" in Artifact.objects.get(trial=broken, kind="pgbench_stderr").file.read()
    assert good.status == Trial.Status.SUCCEEDED and good.tps > 0

    response = client.post(reverse("studies:retry_failed", args=[study.pk]))
    assert response.status_code == 302
    wait_for(lambda: Study.objects.get(pk=study.pk).status == Study.Status.FAILED, 120, "the retried study to end")
    broken.refresh_from_db()
    good.refresh_from_db()
    assert broken.attempts == 2 and broken.status == Trial.Status.FAILED and broken.finished_at is not None
    assert good.attempts == 1 and good.status == Trial.Status.SUCCEEDED
