"""A cancel from the study page stops the pgbench running on the target within seconds; nothing else runs."""

import time

import pytest
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.queue.support import form_data, pgbench_pid, process_alive, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_cancel_from_the_page_stops_the_pgbench_on_the_target(
    client, member, presets, celery_processes, local_target, installed_build
):
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(
        host=host,
        builds=[build],
        baseline=build,
        scenarios=[presets["pgecons-reference"]],
        clients="1,2",
        duration="60",
    )
    celery_processes.worker("cancel")
    client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    pid = wait_for(lambda: pgbench_pid(host.work_dir), 90, "pgbench to run")

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
