"""Running a study's design again: the new-study form's initial values taken from a study (a report's "run this
design again" link opens /studies/new/?from=<id>). Its year is this year's and its seed a fresh one's (the form's
defaults); builds, hosts and scenarios are filled where they still exist; a published study gives what its source
states."""

from __future__ import annotations

from typing import Any

from benchdash.studies.design import StudyDesign
from benchdash.studies.forms import design_initial
from benchdash.studies.models import Study


def rerun_initial(source: str | None) -> dict[str, Any] | None:
    """The initial values of ?from=<id>: {} without the parameter, None where it names no study."""
    if source is None:
        return {}
    study = Study.objects.filter(pk=int(source)).first() if source.isascii() and source.isdigit() else None
    return None if study is None else design_initial(StudyDesign.from_study(study))
