"""Whether the artifact storage can keep an attempt's outcome, asked before the attempt runs: storage that cannot
keep it stops the study before a benchmark runs for nothing (issue 26).

Local storage (MEDIA_ROOT) is measured: its free space against the largest outcome of the study so far, and at least
ARTIFACT_ROOM_MIN_BYTES. S3 is not probed (a bucket has no free space to measure): a write that fails there takes
the failure path of benchdash.queue.tasks.store_outcome, which fails the trial at once and stops the study.

The reason is kept as the trial's error, in English with its figures like every trial error; the study page shows it
in the reader's language (storage_reason_shown).
"""

import os
import re
import shutil

from django.conf import settings
from django.db.models import Sum
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext

from benchdash.studies.models import Artifact

NO_ROOM = "the artifact storage cannot keep an outcome"
_NO_ROOM_FIGURES = re.compile(rf"{NO_ROOM}: (\d+) bytes free, (\d+) bytes needed in (.+)$")


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


def storage_reason_shown(error: str) -> str:
    """A trial's error as the study page shows it: storage without room in the reader's language, else as it is."""
    found = _NO_ROOM_FIGURES.search(error)
    if found is None:
        return error
    free, needed, where = found.groups()
    return gettext(
        "The artifact storage has %(free)s free in %(where)s, and an outcome of this study needs %(needed)s: the "
        "study stopped rather than run benchmarks it could not keep. Free space there, then run the failed trials "
        "again."
    ) % {"free": filesizeformat(int(free)), "needed": filesizeformat(int(needed)), "where": where}
