"""A trial's raw files in storage (local disk or S3), one folder a trial, one name an attempt and kind.

Files are written before the transaction that makes rows point at them, under a name no other attempt uses; so a
crash between the two leaves files that no row names, in a folder known from the trial alone, where
artifact_orphans_remove finds and removes them.
"""

import logging
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from benchdash.studies.models import Artifact, Trial

logger = logging.getLogger(__name__)

ARTIFACT_SUFFIX = {"sar": "sa", "progress": "json", "sar_series": "json", "wait_events": "json", "settings": "json"}
_ATTEMPT_OF_NAME = re.compile(r"^attempt-(\d+)-")


class ArtifactWriteError(Exception):
    """The storage could not keep an attempt's files (full, unusable); what the attempt wrote is removed."""


class StoredFile(NamedTuple):
    name: str
    size: int


def trial_folder(trial_id: int) -> str:
    return f"artifacts/trials/{trial_id}"


def artifact_name(trial_id: int, attempt: int, kind: str) -> str:
    return f"{trial_folder(trial_id)}/attempt-{attempt}-{kind}.{ARTIFACT_SUFFIX.get(kind, 'txt')}"


def attempt_files_write(*, trial_id: int, attempt: int, artifacts: Mapping[str, bytes]) -> dict[str, StoredFile]:
    """Write an attempt's known kinds of files; returns kind -> the file stored. Writing again (the store was out and
    the outcome is stored a second time) replaces the attempt's own file rather than adding a second one.

    All or nothing: a write that fails (a full disk leaves a file cut short, even empty) removes every file of this
    call, that one included, and raises ArtifactWriteError."""
    kept = {kind: data for kind, data in artifacts.items() if kind in Artifact.Kind.values}
    written: dict[str, StoredFile] = {}
    try:
        for kind, data in kept.items():
            name = artifact_name(trial_id, attempt, kind)
            if default_storage.exists(name):
                default_storage.delete(name)
            written[kind] = StoredFile(default_storage.save(name, ContentFile(data)), len(data))
    except Exception as error:
        files_delete(artifact_name(trial_id, attempt, kind) for kind in kept)
        raise ArtifactWriteError(f"{type(error).__name__}: {error}") from error
    return written


def files_delete(names: Iterable[str]) -> None:
    for name in names:
        default_storage.delete(name)


def artifact_orphans_remove(trial: Trial) -> list[str]:
    """Remove the trial's files that no artifact row names, except those of an attempt still running (it may be
    about to commit them). Returns the names removed."""
    folder = trial_folder(trial.pk)
    try:
        _dirs, names = default_storage.listdir(folder)
    except FileNotFoundError:
        return []
    kept = set(Artifact.objects.filter(trial=trial).values_list("file", flat=True))
    running = trial.attempts if trial.status == Trial.Status.RUNNING else None
    orphans = [f"{folder}/{name}" for name in names if f"{folder}/{name}" not in kept and _attempt_of(name) != running]
    files_delete(orphans)
    if orphans:
        logger.info("trial %s: removed files no row names: %s", trial.pk, orphans)
    return orphans


def _attempt_of(name: str) -> int | None:
    match = _ATTEMPT_OF_NAME.match(name)
    return int(match.group(1)) if match else None
