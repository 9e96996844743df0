"""A target that goes away for a while (its sshd stopped, then started again) fails none of its trials: the attempt
waits for it with growing delays, the study page says "waiting for host X since ...", and the study finishes with
one attempt per trial. A target gone past the limit fails the study with that reason. A target that freezes (its sshd
stopped with SIGSTOP) as its run ends keeps the run, and the page says it waits as soon as the freeze is noticed.

The clocks are short (BENCHDASH_HOST_WAIT_DELAYS_S, BENCHDASH_HOST_WAIT_LIMIT_S); the defaults, 5 to 60 s up to
15 minutes, ride out an outage of 5 minutes the same way.
"""

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.models import Attempt, FailureKind, Study, Trial
from tests.engine.test_frozen_target import freeze_for
from tests.queue.conftest import ROOT
from tests.queue.support import (
    attempt_history,
    background_pid,
    form_data,
    own_work_dir,
    paced_reference_scenario,
    process_alive,
    register_build,
    register_host,
    wait_for,
)
from tests.sshd import SshServer, sshd_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

OUTAGE_S = 12
SHORT_WAITS = {"BENCHDASH_HOST_WAIT_DELAYS_S": "0.5,1,2"}
# A worker whose SSH transport notices a frozen host after NOTICE_S (tests/queue/quick_notice).
NOTICE_S = 6
QUICK_NOTICE = {"PYTHONPATH": f"{Path(__file__).with_name('quick_notice')}:{ROOT}", "NOTICE_S": str(NOTICE_S)}
FREEZE_S = 25


@pytest.fixture
def far_target() -> Iterator[SshServer]:
    with sshd_server("far") as server:
        yield server


def queue_study_on(client, host: Host, installed_build) -> Study:
    """Two paced trials of one client (presets loaded)."""
    build = register_build(installed_build)
    scenarios = [paced_reference_scenario()]
    data = form_data(host=host, builds=[build], baseline=build, scenarios=scenarios, clients="1", repetitions="2")
    client.post(reverse("studies:new"), {**data, "collect_sar": "", "collect_wait_events": ""})
    return Study.objects.get(title="queue test")


def study_ended(study: Study) -> bool:
    return Study.objects.get(pk=study.pk).status not in ("queued", "running")


def test_its_trials_wait_for_a_host_that_is_gone_a_while_and_all_succeed(
    client, member, presets, celery_processes, far_target, installed_build
):
    host = register_host(far_target.spec)
    far_target.stop()
    stopped_at = time.monotonic()
    celery_processes.env = {**SHORT_WAITS, "BENCHDASH_HOST_WAIT_LIMIT_S": "120"}
    celery_processes.worker("patient")
    study = queue_study_on(client, host, installed_build)

    wait_for(lambda: Host.objects.get(pk=host.pk).unreachable_since, 60, "the attempt to find the host unreachable")
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    progress = client.get(reverse("studies:progress", args=[study.pk])).json()
    time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped_at)))
    far_target.start()
    back_at = timezone.now()
    wait_for(lambda: study_ended(study), 180, "the study to finish")

    study.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    first_attempt = Attempt.objects.get(trial=trials[0])
    assert "Waiting for host far since" in page
    assert [wait["host"] for wait in progress["waiting"]] == ["far"]
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 2
    assert first_attempt.started_at < back_at  # the attempt waited across the outage instead of failing
    assert Host.objects.get(pk=host.pk).unreachable_since is None
    assert "waiting for it" in celery_processes.log("patient")


def test_the_study_fails_with_the_reason_once_the_host_stays_away_past_the_limit(
    client, member, presets, celery_processes, far_target, installed_build
):
    host = register_host(far_target.spec)
    far_target.stop()
    celery_processes.env = {**SHORT_WAITS, "BENCHDASH_HOST_WAIT_LIMIT_S": "4"}
    celery_processes.worker("patient")
    study = queue_study_on(client, host, installed_build)

    wait_for(lambda: study_ended(study), 90, "the study to end")

    study.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    progress = client.get(reverse("studies:progress", args=[study.pk])).json()
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert study.status == Study.Status.FAILED
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.FAILED, 1), (Trial.Status.PENDING, 0)]
    assert "host far unreachable since" in trials[0].error and "gave up after" in trials[0].error
    assert trials[0].failure_kind == FailureKind.HOST_UNREACHABLE
    kind = "a host stayed unreachable: the study stopped"
    assert progress["failure_reason"] == f"{kind}. Detail: {trials[0].error}" and progress["waiting"] == []
    assert "The study failed:" in page and "host far unreachable since" in page
    # It sent its end like any study: the clean-up of its clusters went to the host's queue (and found it away).
    wait_for(lambda: "clear_study_clusters[" in celery_processes.log("patient"), 10, "the study's clean-up")


def test_a_target_frozen_as_its_run_ends_keeps_the_run_and_the_page_shows_the_wait_once_it_is_noticed(
    client, member, presets, celery_processes, far_target, installed_build
):
    host = register_host(far_target.spec)
    celery_processes.env = {**SHORT_WAITS, **QUICK_NOTICE, "BENCHDASH_HOST_WAIT_LIMIT_S": "120"}
    celery_processes.worker("patient")
    study = queue_study_on(client, host, installed_build)
    pgbench = wait_for(lambda: background_pid(own_work_dir(host), "pgbench"), 90, "pgbench to run")
    wait_for(lambda: not process_alive(pgbench), 30, "pgbench to end", every=0.02)
    thaw = freeze_for(far_target, FREEZE_S)
    frozen_at = time.monotonic()

    wait_for(lambda: Host.objects.get(pk=host.pk).unreachable_since, FREEZE_S, "the worker to say it waits")
    noticed_after_s = time.monotonic() - frozen_at
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    thaw.join()
    wait_for(lambda: study_ended(study), 120, "the study to finish")

    study.refresh_from_db()
    first, second = study.trials.order_by("position")
    # A command under way when it froze is noticed after a silence and a probe: twice the transport's limit.
    assert noticed_after_s < 2 * NOTICE_S + 4
    assert "Waiting for host far since" in page
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert [(trial.status, trial.attempts) for trial in (first, second)] == [(Trial.Status.SUCCEEDED, 1)] * 2
    assert first.tps and "far stopped answering" in first.notes, first.notes
    assert Host.objects.get(pk=host.pk).unreachable_since is None
