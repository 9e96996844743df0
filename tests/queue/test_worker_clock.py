"""One clock: workers whose own clocks run 10 minutes behind and ahead (tests/queue/skewed_clock), one for each of the
study's two hosts, run its trials, which last longer than the stale threshold, with beat beside them: no trial is put
back, every attempt is the first, and the times kept are the store's (docs/RELIABILITY.md). A retry sent by a process
whose clock is 10 minutes off waits its delay on the store's clock."""

import io
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command

from benchdash.inventory.models import Host
from benchdash.queue.tasks import report_host_wait
from benchdash.store_clock import store_now
from benchdash.studies.design import StudyDesign
from benchdash.studies.lifecycle import services
from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.conftest import FAST_CLOCKS
from tests.queue.support import attempt_history, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SKEWED_CLOCK = str(Path(__file__).with_name("skewed_clock"))
# Each trial runs longer than beat's stale threshold: a heartbeat stamped with the worker's clock would be stale.
DURATION_S = int(FAST_CLOCKS["BENCHDASH_TRIAL_STALE_AFTER_S"]) + 3


OFFSETS_S = {"local": -600, "remote": 600}


def test_workers_10_minutes_behind_and_ahead_run_a_study_with_no_put_back_and_the_store_s_times(
    celery_processes, presets, local_target, ssh_target, installed_build
):
    local, remote = register_host(local_target), register_host(ssh_target)
    build = register_build(installed_build)
    celery_processes.beat()
    # Beat's task runs on a worker with a true clock that serves no host, as on another machine.
    celery_processes.env = {"BENCHDASH_WORKER_HOSTS": "elsewhere"}
    celery_processes.worker("true-clock")
    # One worker behind and one ahead, each serving one host: the study's two trials run at once.
    for host, offset_s in zip((local, remote), OFFSETS_S.values(), strict=True):
        skew = {"PYTHONPATH": SKEWED_CLOCK, "CLOCK_OFFSET_S": str(offset_s), "BENCHDASH_WORKER_HOSTS": host.name}
        celery_processes.env = skew
        celery_processes.worker(f"skewed{offset_s:+d}")
    paced = paced_reference_scenario().slug  # 9 s of pgbench on each host, leaving the cores to the rest
    args = ["--builds", build.name, "--host", local.name, "--scenarios", paced, "--clients", "1"]
    args += ["--repetitions", "1", "--duration", str(DURATION_S), "--scale", "1", "--no-sar", "--no-wait-events"]
    args += ["--vary", f"host={local.name},{remote.name}"]
    queued_at = store_now()
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(kind=Study.Kind.MEASURED)

    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    ended_at = store_now()
    trials = list(study.trials.select_related("host").order_by("host__name"))
    attempts = list(Attempt.objects.filter(trial__study=study).order_by("started_at"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, attempt_history(study)
    assert sorted(trial.host.name for trial in trials) == sorted([local.name, remote.name])
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 2
    assert [attempt.result for attempt in attempts] == [Attempt.Result.SUCCEEDED] * 2
    for trial in trials:  # the store's times, not 10 minutes off
        assert queued_at <= trial.started_at < trial.finished_at <= ended_at
        assert trial.finished_at - trial.started_at >= timedelta(seconds=DURATION_S)
    for offset_s in OFFSETS_S.values():
        log = celery_processes.log(f"skewed{offset_s:+d}")
        assert "run_study_trial[" in log and "worker lost" not in log, log[-2000:]  # it ran its host's trial
        worker_said = logged_times(log)[-1]  # the worker's own clock was off indeed
        assert abs((worker_said - ended_at).total_seconds() - offset_s) < 60
    assert "worker lost" not in "".join(trial.error for trial in trials)


def logged_times(log: str) -> list[datetime]:
    """The times of a Celery log's lines, in the processes' time zone (Django's TIME_ZONE)."""
    zone = ZoneInfo(settings.TIME_ZONE)
    stamps = re.findall(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+:", log, re.M)
    return [datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=zone) for stamp in stamps]


@pytest.mark.parametrize("offset_s", [600, -600], ids=["ahead", "behind"])
def test_a_retry_sent_by_a_process_10_minutes_off_waits_its_delay_on_the_store_s_clock(
    offset_s, settings, celery_processes, presets, local_target, installed_build
):
    settings.TRIAL_RETRY_DELAY_S = RETRY_DELAY_S
    host = register_host(local_target)
    study = retried_study(host, register_build(installed_build))
    (retried,) = study.trials.all()
    # Beat's backstop (a pending trial whose task is late is sent again) stays out of the test's time.
    celery_processes.env = {"BENCHDASH_TRIAL_STALE_AFTER_S": "60"}
    celery_processes.worker("true-clock")

    sent_at = store_now()
    with time_machine.travel(datetime.now(UTC) + timedelta(seconds=offset_s), tick=True):
        services.study_continue(study_id=study.pk, host_id=host.pk)  # the retry's task, sent with this clock
    wait_for(lambda: Trial.objects.get(pk=retried.pk).started_at, RETRY_DELAY_S + 30, "the retry's claim")
    claimed_at = Trial.objects.get(pk=retried.pk).started_at
    services.study_cancel(study=study)
    wait_for(lambda: Trial.objects.get(pk=retried.pk).status != Trial.Status.RUNNING, 60, "the cancelled trial")

    # Not 10 minutes late (ahead), nor at once (behind): the delay, on the store's clock, and a claim's round trips.
    assert RETRY_DELAY_S <= (claimed_at - sent_at).total_seconds() < RETRY_DELAY_S + 15


RETRY_DELAY_S = 4


def retried_study(host, build) -> Study:
    """A queued study of one paced trial whose first attempt failed and was put back, with no task on its way."""
    design = StudyDesign(
        title="retried",
        year=2026,
        db_host=host,
        builds=(build,),
        baseline=build,
        scenarios=(paced_reference_scenario(),),
        client_levels=(1,),
        repetitions=1,
        duration_s=30,
        scale=1,
        seed=1,
    )
    study = services.study_create(design=design)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.QUEUED)
    study.trials.update(status=Trial.Status.PENDING, attempts=1, error="attempt 1: failed")
    return study


def test_a_wait_a_worker_10_minutes_ahead_notes_is_kept_in_the_store_s_time(local_target):
    host = register_host(local_target)
    before = store_now()
    report_host_wait(host.name, datetime.now(UTC) + timedelta(minutes=10))  # the worker's since, 10 minutes ahead
    assert before <= Host.objects.get(pk=host.pk).unreachable_since <= store_now()
