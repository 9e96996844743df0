"""The two sides of a comparison page (`/compare/?a=<ref>&b=<ref>`): a ref read from the address, and the line of a
study it names, with its points.

A ref is one of:

- `study:<id>`: the study's baseline line (its baseline build, or in a variant study its baseline variant);
- `study:<id>/line:<line id>`: one line of the study (a build id in a study of builds, a variant id in a variant
  study: results/lines.py);
- `build:<id>`: the build in the newest study (year, then id) that has figures of it;
- `variant:<id>`: the variant in its study.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import Study, StudyPoint, Variant
from benchdash.studies.results.compare import Point
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_results

REF = re.compile(
    r"^(?:study:(?P<study>\d{1,18})(?:/line:(?P<line>\d{1,18}))?|(?P<kind>build|variant):(?P<id>\d{1,18}))$"
)
REF_HELP = _("a ref is study:<id>, study:<id>/line:<line id>, build:<id> or variant:<id>")


class BadRef(ValueError):
    """A ref that is not written as one, or names nothing there is."""


@dataclass(frozen=True)
class Line:
    line_id: int
    label: str


@dataclass(frozen=True)
class CompareSide:
    """One line of one study: its points (build_id holds the line's id), its build, its variant where the study's lines
    are variants (its evidence is keyed by it), and the study's other lines (to switch to)."""

    study: Study
    line: Line
    build_id: int
    points: list[Point] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    variant_id: int | None = None

    @property
    def ref(self) -> str:
        return f"study:{self.study.pk}/line:{self.line.line_id}"

    @property
    def title(self) -> str:
        return f"{self.study} · {self.line.label}"


def compare_side(text: str) -> CompareSide:
    """The side a ref names; BadRef where it is not a ref or names no line with figures to show."""
    found = REF.match(text.strip())
    if found is None:
        raise BadRef(REF_HELP)
    if found["study"]:
        study = Study.objects.filter(pk=int(found["study"])).first()
        return _side(study, int(found["line"]) if found["line"] else None)
    if found["kind"] == "variant":
        variant = Variant.objects.filter(pk=int(found["id"])).first()
        return _variant_side(variant)
    return _build_side(int(found["id"]))


def _variant_side(variant: Variant | None) -> CompareSide:
    if variant is None:
        raise BadRef(_("no such variant"))
    lines = study_lines(variant.study)
    return _side(variant.study, variant.pk if lines.by_variant else variant.build_id)


def _build_side(build_id: int) -> CompareSide:
    newest = StudyPoint.objects.filter(build_id=build_id).order_by("-study__year", "-study_id").first()
    if newest is None:
        raise BadRef(_("no study has figures of this build"))
    study = newest.study
    if not study_lines(study).by_variant:
        return _side(study, build_id)
    variant = study.variants.filter(build_id=build_id).order_by("pk").first()
    return _side(study, variant.pk if variant else None)


def _side(study: Study | None, line_id: int | None) -> CompareSide:
    if study is None:
        raise BadRef(_("no such study"))
    points, study_lines_of = study_results(study), study_lines(study)
    lines = _lines(points)
    wanted = line_id if line_id is not None else study_lines_of.baseline_id
    line = next((line for line in lines if line.line_id == wanted), None)
    if line is None:
        raise BadRef(_("the study has no figures of this line"))
    variant_id = line.line_id if study_lines_of.by_variant else None
    build_id = line.line_id if variant_id is None else _variant_build(variant_id)
    own = [point for point in points if point.build_id == line.line_id]
    return CompareSide(study=study, line=line, build_id=build_id, points=own, lines=lines, variant_id=variant_id)


def _lines(points: list[Point]) -> list[Line]:
    labels = {point.build_id: point.label for point in points}
    return [Line(line_id, label) for line_id, label in labels.items()]


def _variant_build(variant_id: int) -> int:
    return Variant.objects.filter(pk=variant_id).values_list("build_id", flat=True).get()


def line_ref(study: Study, build_id: int) -> str | None:
    """The ref of a study's line of one build: the build's line, or in a variant study its variant of that build
    (the first, where it has several); None where the study has none."""
    if not study_lines(study).by_variant:
        return f"study:{study.pk}/line:{build_id}"
    variant = study.variants.filter(build_id=build_id).order_by("pk").values_list("pk", flat=True).first()
    return None if variant is None else f"variant:{variant}"
