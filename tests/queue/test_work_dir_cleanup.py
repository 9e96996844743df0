"""Targets are left as they were found (issue 26): a study's clusters leave its DB host when it ends or is cancelled,
unless it keeps them; beat's sweep removes what a lost clean-up left; the host page shows the work dir's space and
clears it, never touching the cluster of the trial that runs."""

import contextlib
import os
import stat
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from benchdash.inventory.models import Host
from benchdash.queue.tasks import sweep_work_dirs
from benchdash.queue.work_dir import clear_host_clusters
from benchdash.studies.lifecycle.specs import host_spec
from benchdash.studies.models import Study, Trial
from tests.queue.support import (
    MIB,
    form_data,
    leftover_cluster,
    own_work_dir,
    paced_reference_scenario,
    process_alive,
    queue_reference_study_and_wait_for_pgbench,
    register_build,
    register_host,
    wait_for,
)
from workers.host_lock import host_lock
from workers.transport import connect

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CLEARED_WITHIN_S = 10


def _clusters(work_dir: str) -> dict[str, int]:
    """Each cluster dir under the work dir and the bytes its files hold. A clean-up may remove them as they are read:
    what is gone counts nothing (os.walk skips a folder gone before it is listed)."""
    try:
        entries = list(Path(work_dir, "clusters").iterdir())
    except FileNotFoundError:
        return {}
    return {entry.name: _file_bytes(entry) for entry in entries}


def _file_bytes(folder: Path) -> int:
    total = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                status = os.lstat(os.path.join(parent, name))
                total += status.st_size if stat.S_ISREG(status.st_mode) else 0
    return total


def _run_study(client, host, build, scenario, **extra) -> Study:
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[scenario], clients="1", **extra)
    client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")
    study.refresh_from_db()
    return study


def test_a_study_that_ends_leaves_no_cluster_and_the_host_notes_its_work_dir(
    client, member, presets, shared_worker, local_target, installed_build
):
    host, build = register_host(local_target), register_build(installed_build)
    study = _run_study(client, host, build, paced_reference_scenario())
    ended = time.monotonic()

    wait_for(lambda: _clusters(own_work_dir(host)) == {}, CLEARED_WITHIN_S, "the study's cluster to go")
    print(f"cluster gone {time.monotonic() - ended:.1f} s after the study ended")
    host = wait_for(lambda: Host.objects.filter(pk=host.pk, work_dir_measured_at__isnull=False).first(), 10, "usage")
    assert study.status == Study.Status.DONE and not study.keep_data
    assert host.work_dir_usage["clusters"] <= 4096 and host.work_dir_usage["snapshots"] == 0
    assert host.work_dir_usage["builds"] == 0  # an installed build: nothing unpacked under the work dir
    # The pristine data stays for the host's next study (the session's, linked: tests/queue/conftest.py).
    assert host.work_dir_usage["pristine"] > 10 * MIB


def test_a_cancelled_study_leaves_no_cluster_and_no_server_within_seconds(
    client, member, presets, celery_processes, local_target, installed_build
):
    host, study, _, pgbench = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, duration="60", worker="canceller", clients="1"
    )
    (name,) = _clusters(own_work_dir(host))
    postmaster = int(Path(own_work_dir(host), "clusters", name, "data", "postmaster.pid").read_text().split()[0])
    assert _clusters(own_work_dir(host))[name] > 10 * MIB

    client.post(reverse("studies:cancel", args=[study.pk]))
    cancelled = time.monotonic()
    wait_for(lambda: _clusters(own_work_dir(host)) == {}, 30, "the cancelled study's cluster to go")
    gone_after = time.monotonic() - cancelled
    print(f"cluster of the cancelled study gone {gone_after:.1f} s after the cancel")

    assert gone_after < CLEARED_WITHIN_S
    assert not process_alive(postmaster) and not process_alive(pgbench)
    assert Study.objects.get(pk=study.pk).status == Study.Status.CANCELLED


def test_kept_data_stays_through_the_sweep_until_a_member_clears_the_host(
    client, member, presets, shared_worker, local_target, installed_build
):
    host, build = register_host(local_target), register_build(installed_build)
    study = _run_study(client, host, build, paced_reference_scenario(), keep_data="on")
    gone_study = leftover_cluster(own_work_dir(host), "gone-study-s1-f100", study_id=study.pk + 1000)
    assert study.status == Study.Status.DONE and study.keep_data
    wait_for(lambda: Host.objects.get(pk=host.pk).work_dir_measured_at, 10, "the clean-up after the study")
    (kept,) = set(_clusters(own_work_dir(host))) - {gone_study.name}
    kept_bytes = _clusters(own_work_dir(host))[kept]

    measured_before = Host.objects.get(pk=host.pk).work_dir_measured_at
    # A wait noted by an attempt that was lost before the host answered again: the sweep's connection says it does.
    Host.objects.filter(pk=host.pk).update(unreachable_since=measured_before)
    assert sweep_work_dirs() == [host.pk]
    wait_for(lambda: not gone_study.exists(), 30, "the sweep to remove the cluster of a study no longer stored")
    # The sweep notes the usage after it removed (and listed the pristine data): the page is read after that.
    wait_for(lambda: Host.objects.get(pk=host.pk).work_dir_measured_at > measured_before, 10, "the sweep's usage")
    assert _clusters(own_work_dir(host)) == {kept: kept_bytes} and kept_bytes > 10 * MIB
    assert Host.objects.get(pk=host.pk).unreachable_since is None

    page = client.get(reverse("inventory:host_detail", args=[host.pk])).content.decode()
    usage = Host.objects.get(pk=host.pk).work_dir_usage
    assert usage["clusters"] + usage["snapshots"] >= kept_bytes
    assert f'data-bytes="{usage["clusters"]}"' in page and reverse("queue:host_clear_work_dir", args=[host.pk]) in page

    client.post(reverse("queue:host_clear_work_dir", args=[host.pk]))
    wait_for(lambda: _clusters(own_work_dir(host)) == {}, 30, "the member's clear to remove the kept cluster")
    wait_for(lambda: Host.objects.get(pk=host.pk).work_dir_usage["clusters"] <= 4096, 10, "the usage noted")


def test_clearing_the_work_dir_never_removes_the_cluster_a_running_trial_uses(
    client, member, presets, celery_processes, local_target, installed_build
):
    options = {"duration": "30", "worker": "busy", "concurrency": 2, "clients": "1"}
    host, study, _, pgbench = queue_reference_study_and_wait_for_pgbench(
        client, celery_processes, local_target, installed_build, **options
    )
    (running,) = _clusters(own_work_dir(host))
    ended = Study.objects.create(title="ended", year=2025, db_host=host, status=Study.Status.DONE)
    leftover = leftover_cluster(own_work_dir(host), "ended-s1-f100", study_id=ended.pk)

    client.post(reverse("queue:host_clear_work_dir", args=[host.pk]))
    wait_for(lambda: not leftover.exists(), 30, "the clear to remove the ended study's cluster")

    assert list(_clusters(own_work_dir(host))) == [running] and _clusters(own_work_dir(host))[running] > 10 * MIB
    assert process_alive(pgbench)
    assert Trial.objects.get(study=study).status == Trial.Status.RUNNING
    client.post(reverse("studies:cancel", args=[study.pk]))
    wait_for(lambda: _clusters(own_work_dir(host)) == {}, 30, "the cancelled study's cluster to go")


def test_the_clear_button_needs_a_login_the_permission_to_queue_studies_and_a_post(client, member, local_target):
    """A member who may not queue studies gets 403, a visitor the login page, a GET 405."""
    host = register_host(local_target)
    url = reverse("queue:host_clear_work_dir", args=[host.pk])
    assert client.get(url).status_code == 405
    client.force_login(User.objects.create_user("reader", password="pw-reader-1"))
    assert client.post(url).status_code == 403
    client.logout()
    assert "login" in client.post(url)["Location"]


def test_a_clear_keeps_everything_while_another_installation_s_trial_holds_the_host(local_target):
    """Its removals and the usage's walk would load the host under the other installation's run: the clear waits
    for nothing, removes nothing and notes the holder; once the host is free, the next clear does its work. The
    sweep's clear (clear_kept off): the queue tests' pristine data, shared by the pytest worker, stays."""
    host = register_host(local_target)
    with connect(host_spec(host)) as transport:  # the clusters dir, as a trial makes it: the target's account's
        transport.run(["mkdir", "-p", f"{own_work_dir(host)}/clusters"])
    leftover = leftover_cluster(own_work_dir(host), "ended-s1-f100", 999_999)  # a study no longer in the store
    staging = "6f1d3a52-0000-4000-8000-000000000001"  # another installation sharing the host
    with connect(host.whole_spec().for_installation(staging)) as other, host_lock(other):
        assert clear_host_clusters(host, clear_kept=False) == []
    host.refresh_from_db()
    assert leftover.exists() and host.busy_with == staging

    assert clear_host_clusters(host, clear_kept=False) == [str(leftover)]
    host.refresh_from_db()
    assert not leftover.exists() and host.busy_with == "" and host.work_dir_usage["clusters"] == 0
