"""One clock: a worker whose own clock runs 10 minutes behind or ahead (tests/queue/skewed_clock) runs a study whose
trials last longer than the stale threshold, with beat beside it: no trial is put back, every attempt is the first,
and the times kept are the store's (docs/RELIABILITY.md)."""

import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.urls import reverse

from benchdash.store_clock import store_now
from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.conftest import FAST_CLOCKS
from tests.queue.support import attempt_history, form_data, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SKEWED_CLOCK = str(Path(__file__).with_name("skewed_clock"))
# Each trial runs longer than beat's stale threshold: a heartbeat stamped with the worker's clock would be stale.
DURATION_S = int(FAST_CLOCKS["BENCHDASH_TRIAL_STALE_AFTER_S"]) + 3


@pytest.mark.parametrize("offset_s", [-600, 600])
def test_a_worker_10_minutes_off_runs_a_study_with_no_put_back_and_the_store_s_times(
    offset_s, client, member, presets, celery_processes, local_target, installed_build
):
    celery_processes.beat()
    # Beat's task runs on a worker with a true clock that serves no host, as on another machine.
    celery_processes.env = {"BENCHDASH_WORKER_HOSTS": "elsewhere"}
    celery_processes.worker("true-clock")
    celery_processes.env = {"PYTHONPATH": SKEWED_CLOCK, "CLOCK_OFFSET_S": str(offset_s)}
    celery_processes.worker("skewed")
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[presets["pgbench-select-only"]])
    queued_at = store_now()
    client.post(
        reverse("studies:new"), {**data, "duration_s": str(DURATION_S), "collect_sar": "", "collect_wait_events": ""}
    )
    study = Study.objects.get(title="queue test")

    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    ended_at = store_now()
    trials = list(study.trials.order_by("position"))
    attempts = list(Attempt.objects.filter(trial__study=study).order_by("started_at"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, attempt_history(study)
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 2
    assert [attempt.result for attempt in attempts] == [Attempt.Result.SUCCEEDED] * 2
    assert "worker lost" not in celery_processes.log("skewed") + "".join(trial.error for trial in trials)
    for trial in trials:  # the store's times, not 10 minutes off
        assert queued_at <= trial.started_at < trial.finished_at <= ended_at
        assert trial.finished_at - trial.started_at >= timedelta(seconds=DURATION_S)
    worker_said = logged_times(celery_processes.log("skewed"))[-1]  # the worker's own clock was off indeed
    assert abs((worker_said - ended_at).total_seconds() - offset_s) < 60


def logged_times(log: str) -> list[datetime]:
    """The times of a Celery log's lines, in the processes' time zone (Django's TIME_ZONE)."""
    zone = ZoneInfo(settings.TIME_ZONE)
    stamps = re.findall(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+:", log, re.M)
    return [datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=zone) for stamp in stamps]
