"""A reset cut short by a killed worker is recovered by the next attempt: a snapshot half-made (its copy stopped
half-way) and a data directory half-copied from the snapshot. The worker and the copy it started die together,
as when the worker's machine goes down, and leave the half-made directory behind; beat puts the trial back, and
another worker finishes the study with nothing lost or doubled.

The copy is frozen (SIGSTOP) the moment its destination directory shows up, then killed with the worker, so the
directory it leaves is always half-made: the data of a scale-1 cluster copies in a fraction of a second.
"""

import contextlib
import os
import posixpath
import signal
import time
from pathlib import Path

import pytest
from django.urls import reverse

from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.support import (
    background_pid,
    form_data,
    own_work_dir,
    process_alive,
    register_build,
    register_host,
    rescue_and_wait_for_the_study,
)
from workers.cluster import MARKER_FILE

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The background command of the copy, and the directory it copies into (relative to the cluster's directory).
COPIES = {
    "snapshot-half-made": ("snapshot-data", "snapshot.part"),
    "data-half-copied": ("restore-data", "data"),
    # Only the worker dies; its copy, still there (frozen), must be stopped before the data is copied again.
    "copy-left-behind": ("restore-data", "data"),
}


def freeze_copy_once_it_writes(work_dir: str, name: str, destination: str, timeout: float = 120) -> tuple[int, Path]:
    """Stop (SIGSTOP) the background copy `name` once its destination directory exists; its group and cluster dir."""
    clusters = Path(work_dir, "clusters")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        group = background_pid(work_dir, name)
        targets = list(clusters.glob(f"*/{destination}")) if group else []
        if group and targets:
            os.killpg(group, signal.SIGSTOP)
            return group, targets[0].parent
        time.sleep(0.005)
    raise AssertionError(f"timed out waiting for the copy {name}")


def file_count(directory: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(directory))


@pytest.mark.parametrize("half_made", list(COPIES))
def test_the_next_attempt_recovers_a_reset_that_a_killed_worker_left_half_done(
    client, member, presets, celery_processes, local_target, installed_build, half_made
):
    host, build = register_host(local_target), register_build(installed_build)
    # pgecons-update rebuilds its data for every trial: the first trial snapshots it, the second restores it.
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[presets["pgecons-update"]])
    doomed = celery_processes.worker("doomed")
    # keep_data: the cluster is looked at after the study ended, which would otherwise remove it.
    client.post(reverse("studies:new"), {**data, "collect_sar": "", "collect_wait_events": "", "keep_data": "on"})
    study = Study.objects.get(title="queue test")

    copy_name, destination = COPIES[half_made]
    copy_group, cluster = freeze_copy_once_it_writes(own_work_dir(host), copy_name, destination)
    interrupted = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    celery_processes.kill(doomed)
    if half_made != "copy-left-behind":
        with contextlib.suppress(ProcessLookupError):
            os.killpg(copy_group, signal.SIGKILL)  # the machine went down: the copy dies with the worker
    left = cluster / destination
    assert left.is_dir() and not (cluster / MARKER_FILE).exists()
    if destination == "data":
        assert file_count(left) < file_count(cluster / "snapshot")

    rescue_and_wait_for_the_study(celery_processes, study, interrupted, timeout=240)
    results = list(Attempt.objects.filter(trial=interrupted).order_by("number").values_list("result", flat=True))
    assert results == [Attempt.Result.LOST, Attempt.Result.SUCCEEDED]
    assert not process_alive(copy_group)
    if half_made == "copy-left-behind":
        assert "stopped leftovers" in interrupted.notes and copy_name in interrupted.notes
    assert not Path(posixpath.join(cluster, "snapshot.part")).exists()
    assert (cluster / "snapshot" / "PG_VERSION").exists() and (cluster / MARKER_FILE).exists()
