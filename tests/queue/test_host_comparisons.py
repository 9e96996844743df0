"""Host comparisons as the seeds ran them (issue 41, point 4), on real workers and targets:

- one after another (the 2020 dual-boot server, Windows and Linux one at a time): every trial of the first host,
  while the second is down; then the study waits for the second, says so on its page, and goes on once it is up (the
  first shut down meanwhile): no trial of one host overlaps one of the other;
- the load axis (the 2014 "two guests loaded at once against one alone"), one study: each `at_once` trial runs at the
  same moment as its partner on the other host, each `alone` trial by itself.
"""

import io
import itertools
import time
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.inventory.models import Host
from benchdash.studies.models import Load, Study, Trial
from benchdash.studies.overlaps import trial_overlaps
from tests.queue.support import attempt_history, paced_reference_scenario, register_build, register_host, wait_for
from tests.sshd import SshServer, sshd_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHORT_WAITS = {"BENCHDASH_HOST_WAIT_DELAYS_S": "0.5,1,2", "BENCHDASH_HOST_WAIT_LIMIT_S": "120"}


@pytest.fixture
def dual_boot() -> Iterator[tuple[SshServer, SshServer]]:
    """Two targets, linux and windows, as one dual-boot server's two systems (each its own sshd)."""
    with sshd_server("linux") as linux, sshd_server("windows") as windows:
        yield linux, windows


def queue_study(build_name: str, *vary: str, repetitions: str = "2", extra: tuple[str, ...] = ()) -> Study:
    args = ["--builds", build_name, "--scenarios", paced_reference_scenario().slug, "--clients", "1"]
    args += ["--repetitions", repetitions, "--duration", "1", "--scale", "1", "--no-sar", "--no-wait-events"]
    for axis in vary:
        args += ["--vary", axis]
    call_command("queue_study", *args, *extra, stdout=io.StringIO(), stderr=io.StringIO())
    return Study.objects.get(kind=Study.Kind.MEASURED)


def ended(study: Study) -> bool:
    return Study.objects.get(pk=study.pk).status not in ("queued", "running")


def test_one_after_another_runs_one_host_then_waits_for_the_other_to_come_up_and_goes_on(
    client, member, presets, celery_processes, dual_boot, installed_build
):
    linux, windows = dual_boot
    linux_host, windows_host = register_host(linux.spec), register_host(windows.spec)
    windows.stop()  # the server runs Linux first
    build = register_build(installed_build)
    celery_processes.env = SHORT_WAITS
    for name in ("left", "right"):
        celery_processes.worker(name)
    study = queue_study(build.name, "host=linux,windows", extra=("--host", "linux", "--host-order", "in_turn"))

    wait_for(lambda: Host.objects.get(pk=windows_host.pk).unreachable_since, 180, "the study to wait for windows")
    linux_trials = list(study.trials.filter(host=linux_host))
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    linux.stop()  # and boot Windows
    time.sleep(3)
    windows.start()
    wait_for(lambda: ended(study), 180, "the study to finish")

    study.refresh_from_db()
    trials = list(study.trials.select_related("host").order_by("started_at"))
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert [trial.status for trial in linux_trials] == [Trial.Status.SUCCEEDED] * 2
    assert [trial.host.name for trial in trials] == ["linux", "linux", "windows", "windows"]
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 4
    assert all(one.finished_at <= two.started_at for one, two in itertools.pairwise(trials))
    assert trial_overlaps(study) == []
    assert "Waiting for host windows since" in page and "one after another" in page
    assert Host.objects.get(pk=windows_host.pk).unreachable_since is None


def test_the_load_axis_runs_at_once_trials_together_and_alone_trials_by_themselves(
    client, member, presets, celery_processes, local_target, ssh_target, installed_build
):
    local, remote = register_host(local_target), register_host(ssh_target)
    build = register_build(installed_build)
    for name in ("left", "right"):
        celery_processes.worker(name)
    study = queue_study(
        build.name, f"host=local,{remote.name}", "load=alone,at_once", repetitions="1", extra=("--host", "local")
    )
    wait_for(lambda: ended(study), 300, "the study to finish")

    study.refresh_from_db()
    trials = list(study.trials.select_related("host", "variant"))
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert sorted((trial.host.name, trial.variant.load) for trial in trials) == sorted(
        (host.name, load) for host in (local, remote) for load in (Load.ALONE, Load.AT_ONCE)
    )
    overlaps = trial_overlaps(study)
    assert len(overlaps) == 1, overlaps
    together = {overlaps[0].first.label, overlaps[0].second.label}
    assert together == {trial.variant.label for trial in trials if trial.variant.load == Load.AT_ONCE}
    assert overlaps[0].seconds > 0
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "Trials that ran at the same time" in page and "at the same moment on every DB host" in page
