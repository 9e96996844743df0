"""Two DB hosts loaded at once (issue 21, point 4): a study whose variants live on the local host and on the SSH
target runs on two workers, one trial per host at a time and the two hosts at the same time; the study page lists the
trials that overlapped."""

import io
import itertools

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Attempt, Study, Trial
from benchdash.studies.overlaps import trial_overlaps
from tests.queue.conftest import NOISE_MICRO_RUNS
from tests.queue.support import attempt_history, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_study_on_two_hosts_runs_both_at_once_and_each_host_one_trial_at_a_time(
    client, member, presets, celery_processes, local_target, ssh_target, installed_build
):
    local, remote = register_host(local_target), register_host(ssh_target)
    build = register_build(installed_build)
    for name in ("left", "right"):
        celery_processes.worker(name)
    paced = paced_reference_scenario().slug
    args = ["--builds", build.name, "--host", "local", "--scenarios", paced, "--clients", "1"]
    args += ["--repetitions", "3", "--duration", "2", "--scale", "1", "--no-sar", "--no-wait-events"]
    args += ["--vary", f"host=local,{remote.name}"]
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 300, "the two-host study")

    trials = list(study.trials.select_related("host"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, attempt_history(study)
    assert sorted(trial.host.name for trial in trials) == sorted([local.name, remote.name] * 3)
    assert all(trial.status == Trial.Status.SUCCEEDED for trial in trials)
    for host in (local, remote):
        attempts = list(Attempt.objects.filter(trial__study=study, trial__host=host).order_by("started_at"))
        assert [two.started_at >= one.finished_at for one, two in itertools.pairwise(attempts)] == [True, True]
    overlaps = trial_overlaps(study)
    assert overlaps and all(overlap.first.host != overlap.second.host for overlap in overlaps)
    # Each host ran its own noise check before its first trial, kept with the study under that host.
    study.refresh_from_db()
    assert list(study.host_noise_checks) == [str(remote.pk)] and study.db_host_id == local.pk
    checked = [study.noise_check, study.host_noise_checks[str(remote.pk)]]
    assert [len(check["facts"]["micro_us"]) for check in checked] == [NOISE_MICRO_RUNS] * 2
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "Trials that ran at the same time" in page
