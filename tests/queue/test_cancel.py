"""A cancel from the study page stops what runs on the target within 5 s, the run itself or the data load before
it (pgbench -i at scale 20, which takes several seconds); nothing else of the study runs."""

import time

import pytest
from django.urls import reverse

from benchdash.studies.models import FailureKind, Study, Trial
from tests.queue.support import (
    background_pid,
    form_data,
    own_work_dir,
    pgbench_pid,
    process_alive,
    queue_reference_study_and_wait_for_pgbench,
    register_build,
    register_host,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CANCEL_WITHIN_S = 5


def test_a_cancel_from_the_page_stops_the_pgbench_on_the_target(
    client, member, presets, celery_processes, local_target, installed_build
):
    host, study, _, pid = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration="60", worker="cancel"
    )

    response = client.post(reverse("studies:cancel", args=[study.pk]))
    cancelled_at = time.monotonic()
    wait_for(lambda: not process_alive(pid), 15, "pgbench to stop")
    stopped_after = time.monotonic() - cancelled_at
    print(f"pgbench stopped {stopped_after:.1f} s after the cancel")

    assert response.status_code == 302
    assert stopped_after < CANCEL_WITHIN_S
    wait_for(lambda: not study.trials.filter(status=Trial.Status.RUNNING).exists(), 30, "the trial to end")
    study.refresh_from_db()
    assert study.status == Study.Status.CANCELLED
    assert list(study.trials.order_by("position").values_list("status", flat=True)) == ["cancelled", "cancelled"]
    time.sleep(3)
    assert pgbench_pid(own_work_dir(host)) is None


def test_a_cancel_from_the_page_stops_the_data_load_within_seconds(
    client, member, presets, shared_worker, local_target, installed_build
):
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[presets["pgecons-update"]], clients="1")
    client.post(reverse("studies:new"), {**data, "scale": "20", "collect_sar": "", "collect_wait_events": ""})
    study = Study.objects.get(title="queue test")
    pid = wait_for(lambda: background_pid(own_work_dir(host), "pgbench-init"), 90, "the data load to run")

    client.post(reverse("studies:cancel", args=[study.pk]))
    cancelled_at = time.monotonic()
    wait_for(lambda: not process_alive(pid), 15, "the data load to stop")
    stopped_after = time.monotonic() - cancelled_at
    wait_for(lambda: not study.trials.filter(status=Trial.Status.RUNNING).exists(), 15, "the trial to end")
    ended_after = time.monotonic() - cancelled_at
    print(f"pgbench -i stopped {stopped_after:.1f} s after the cancel; the trial ended after {ended_after:.1f} s")

    trial = study.trials.get()
    assert stopped_after < CANCEL_WITHIN_S and ended_after < CANCEL_WITHIN_S + 2
    assert (trial.status, trial.error) == (Trial.Status.CANCELLED, "attempt 1: cancelled during reset")
    assert trial.failure_kind == FailureKind.CANCELLED
