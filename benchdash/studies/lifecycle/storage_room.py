"""Whether the artifact storage can keep an attempt's outcome, asked before the attempt runs: storage that cannot
keep it stops the study before a benchmark runs for nothing (issue 26).

Local storage (MEDIA_ROOT) is measured: its free space against the largest outcome of the study so far, and at least
ARTIFACT_ROOM_MIN_BYTES. S3 is not probed (a bucket has no free space to measure): a write that fails there takes
the failure path of benchdash.queue.tasks.store_outcome, which fails the trial at once and stops the study.

The reason is kept as the trial's error, in English with its figures like every trial error, beside its failure kind
(storage full), which the study page says in the reader's language.
"""

import os
import shutil

from django.conf import settings
from django.db.models import Sum

from benchdash.studies.models import Artifact

NO_ROOM = "the artifact storage cannot keep an outcome"


def storage_no_room(*, study_id: int, outcome_size: int = 0) -> str | None:
    """Why the artifact storage cannot keep an outcome of this study (of outcome_size bytes, when known) now, with
    the figures; None when it can, or when it cannot be measured (S3)."""
    if settings.S3_BUCKET:
        return None
    needed = max(outcome_size, largest_outcome(study_id), settings.ARTIFACT_ROOM_MIN_BYTES)
    try:
        os.makedirs(settings.MEDIA_ROOT, exist_ok=True)  # as the storage's first write would
        free = shutil.disk_usage(settings.MEDIA_ROOT).free
    except OSError as error:
        return f"{NO_ROOM}: {settings.MEDIA_ROOT} cannot be used: {type(error).__name__}: {error}"
    if free >= needed:
        return None
    return f"{NO_ROOM}: {free} bytes free, {needed} bytes needed in {settings.MEDIA_ROOT}"


def largest_outcome(study_id: int) -> int:
    """Bytes of the largest set of files a trial of the study keeps; 0 before its first."""
    per_trial = Artifact.objects.filter(trial__study_id=study_id).order_by().values("trial").annotate(total=Sum("size"))
    return max(per_trial.values_list("total", flat=True), default=0)
