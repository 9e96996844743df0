"""A study's lines: what its charts draw one line for and its tables one column for.

A study of builds (each variant is its build alone, labelled with the build's name) keeps its builds as lines, as
before variants. A variant study (two variants of one build, or a variant that is more than its build) has its
variants as lines: its points, evidence and comparisons are keyed by variant, and its baseline is the baseline
variant (the seeds' checksums on/off, 1..16 CPUs, physical vs guest, each a line of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F

from benchdash.studies.models import Study, Variant


@dataclass(frozen=True)
class StudyLines:
    by_variant: bool
    # The id its points and evidence carry for the baseline line: the baseline variant's, or the baseline build's.
    baseline_id: int | None

    @property
    def trial_field(self) -> str:
        """The trial's field that names its line."""
        return "variant_id" if self.by_variant else "build_id"


def study_lines(study: Study) -> StudyLines:
    variants = Variant.objects.filter(study=study)
    build_ids = list(variants.values_list("build_id", flat=True))
    if len(build_ids) == len(set(build_ids)) and not variants.exclude(label=F("build__name")).exists():
        return StudyLines(by_variant=False, baseline_id=study.baseline_id)
    baseline = variants.filter(baseline=True).values_list("pk", flat=True).first()
    return StudyLines(by_variant=True, baseline_id=baseline)
