"""A cancel from the study page stops the pgbench running on the target within seconds; nothing else runs."""

import time

import pytest
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.queue.support import pgbench_pid, process_alive, queue_reference_study_and_wait_for_pgbench, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


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
    assert stopped_after < 10
    wait_for(lambda: not study.trials.filter(status=Trial.Status.RUNNING).exists(), 30, "the trial to end")
    study.refresh_from_db()
    assert study.status == Study.Status.CANCELLED
    assert list(study.trials.order_by("position").values_list("status", flat=True)) == ["cancelled", "cancelled"]
    time.sleep(3)
    assert pgbench_pid(host.work_dir) is None
