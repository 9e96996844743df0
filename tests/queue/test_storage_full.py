"""Storage that cannot keep an outcome wastes no runs (issue 26): the trial's task, whose MEDIA_ROOT is a full 1 MiB
tmpfs, stops the study before pgbench runs, or, when the check lets the run through, after that one run at the latest;
the trial fails at once (one attempt), the study page says why with the free space needed, in English and Japanese,
and no file of the failed attempt stays behind. Also, called directly: a write that fails half-way removes what it
wrote.

Stopping is the store's rule, enforced by the task's body: the tasks run in the test's process
(tests/queue/in_process.py), on a real target and real pgbench; no worker process would prove more here."""

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.urls import reverse

from benchdash.studies.lifecycle.artifact_files import ArtifactWriteError, attempt_files_write
from benchdash.studies.models import Attempt, FailureKind, Study, Trial
from tests.queue.support import form_data, paced_reference_scenario, register_build, register_host, wait_for

MIB = 2**20


@pytest.fixture
def small_var(tmp_path: Path) -> Iterator[Path]:
    """A var folder whose media folder (MEDIA_ROOT) is a tmpfs of 1 MiB, unmounted at the end."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    media = tmp_path / "var" / "media"
    media.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(media)], check=True)
    try:
        yield media.parent
    finally:
        subprocess.run(["umount", "--lazy", str(media)], check=True)


def fill(media: Path, leave: int) -> Path:
    """Fill the file system of media up to `leave` bytes free; returns the filler."""
    filler = media / "filler"
    filler.write_bytes(b"\0" * (shutil.disk_usage(media).free - leave))
    assert shutil.disk_usage(media).free == leave
    return filler


def files_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


def test_a_write_that_fails_half_way_removes_what_it_wrote(small_var, settings):
    media = small_var / "media"
    settings.MEDIA_ROOT = str(media)
    filler = fill(media, leave=2 * 4096)  # the first file fits, the second is cut short after a page
    artifacts = {"pgbench_stdout": b"tps = 1\n", "settings": b"{}" * 10_000}

    with pytest.raises(ArtifactWriteError, match="No space left on device"):
        attempt_files_write(trial_id=7, attempt=1, artifacts=artifacts)

    assert files_under(media) == [filler]
    assert shutil.disk_usage(media).free == 2 * 4096


def run_study_on_small_storage(client, tasks_in_process, settings, local_target, installed_build, var: Path):
    """Queue a study of two paced trials (pgbench 3 s each; presets loaded), its tasks run with var/media as their
    MEDIA_ROOT; wait for it to end."""
    settings.MEDIA_ROOT = var / "media"
    tasks_in_process()
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[paced_reference_scenario()], duration="3")
    client.post(reverse("studies:new"), {**data, "collect_sar": "", "collect_wait_events": ""})
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 180, "the study to stop")
    study.refresh_from_db()
    return study


def assert_stopped_after_one_attempt(study: Study) -> tuple[Trial, Attempt]:
    """The study failed at its first trial's first attempt; nothing else was tried. Returns that trial and attempt."""
    first, second = study.trials.order_by("position")
    assert study.status == Study.Status.FAILED and study.finished_at is not None
    assert (first.status, first.attempts) == (Trial.Status.FAILED, 1)
    assert (second.status, second.attempts) == (Trial.Status.PENDING, 0)
    (attempt,) = Attempt.objects.filter(trial__study=study)
    assert attempt.result == Attempt.Result.FAILED
    assert not first.artifacts.exists()
    return first, attempt


def assert_page_says_why(client, study: Study, free: int, needed: int) -> None:
    """The study page says the kind in the reader's language, with the figures in the engine's words beside it."""
    figures = f"{free} bytes free, {needed} bytes needed in "
    english = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "the artifact storage cannot keep an outcome of this study: the study stopped" in english
    japanese = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "成果物の保存先にこの検証の結果を保存できません。" in japanese
    assert figures in english and figures in japanese


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_storage_without_room_stops_the_study_before_pgbench_runs(
    small_var, client, member, presets, tasks_in_process, settings, local_target, installed_build
):
    study = run_study_on_small_storage(client, tasks_in_process, settings, local_target, installed_build, small_var)

    first, attempt = assert_stopped_after_one_attempt(study)
    media = small_var / "media"
    free = shutil.disk_usage(media).free
    assert free == MIB
    assert first.error == (
        f"attempt 1: the artifact storage cannot keep an outcome: {free} bytes free, {64 * MIB} bytes needed in {media}"
    )
    assert (attempt.finished_at - attempt.started_at).total_seconds() < 3, "less than pgbench's 3 s: it never ran"
    assert first.command == "" and first.tps is None
    assert files_under(media) == []
    assert (first.failure_kind, attempt.failure_kind) == (FailureKind.STORAGE_FULL, FailureKind.STORAGE_FULL)
    assert_page_says_why(client, study, free=free, needed=64 * MIB)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_outcome_the_full_storage_cannot_keep_fails_its_one_run_and_stops_the_study_which_clears_its_cluster(
    small_var, client, member, presets, tasks_in_process, settings, local_target, installed_build
):
    media = small_var / "media"
    filler = fill(media, leave=0)
    settings.ARTIFACT_ROOM_MIN_BYTES = 0
    study = run_study_on_small_storage(client, tasks_in_process, settings, local_target, installed_build, small_var)

    clusters = Path(local_target.work_dir, "clusters")
    # The study's end goes out as any other's: its clean-up removes the cluster the run made, not beat's sweep.
    wait_for(lambda: not any(clusters.glob("*")), 30, "the stopped study's cluster to leave the target")
    first, attempt = assert_stopped_after_one_attempt(study)
    assert (attempt.finished_at - attempt.started_at).total_seconds() >= 3, "pgbench ran its 3 s, once"
    prefix = "attempt 1: the artifact storage cannot keep an outcome: 0 bytes free, "
    assert first.error.startswith(prefix) and first.error.endswith(f" bytes needed in {media}"), first.error
    needed = int(first.error.removeprefix(prefix).split()[0])
    assert needed > 0, "the outcome's own size"
    assert first.failure_kind == FailureKind.STORAGE_FULL
    assert files_under(media) == [filler], "the cut-short file of the failed write is gone"
