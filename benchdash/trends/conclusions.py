"""The conclusions the seeds state, put with their published studies (data/published_conclusions.csv: a study's
title and its conclusions, quoted word for word). A study whose conclusions a member wrote keeps them."""

from __future__ import annotations

import csv
import io

from benchdash.studies.models import Study


def load_published_conclusions(data: bytes) -> int:
    """Write each row's conclusions on the published study of that title where none are written; the count written."""
    written = 0
    for row in csv.DictReader(io.StringIO(data.decode("utf-8"))):
        studies = Study.objects.filter(kind=Study.Kind.PUBLISHED, title=row["study_title"], conclusions="")
        written += studies.update(conclusions=row["conclusions"].strip())
    return written
