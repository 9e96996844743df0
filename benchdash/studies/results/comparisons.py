"""A study's comparisons: two cells that differ in exactly one axis, named by that axis and both sides.

Every line of a study (a build, or in a variant study a variant) sits at one level of each of the study's axes: the
version, checksums, CPUs, the DB host, -t, a setting (axes.py reads them from the variants). The seeds lay their
tables out that way: what checksums cost within each version, what a version gains within each CPU count (seed 004).
The steps:

1. each axis's reference level is the baseline line's level on it;
2. for each axis and each line off that axis's reference level, its reference line is the one at the reference
   level of that axis and at the line's own level of every other axis; a line with none (a design that does not
   cross every level) is not compared on that axis;
3. each point of the line is compared with its reference line's point at the same scenario and level, as
   compare.Comparing pairs any two points (the ratio, its interval and verdict).

A study of builds has one axis, the version: every build against the baseline build, as before axes. The version's
ratio is the seeds' 前バージョン比 where the reference is the version just before; between two versions further
apart it is a ratio between versions. Pure functions over plain data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import version_sort_key
from benchdash.studies.results.compare import Comparing, Point, PointKey

VERSION_AXIS = "version"
# The level of a variant that leaves the axis's field empty (initdb's, pgbench's or the study's value); files and the
# API keep the word, pages translate it.
DEFAULT_LEVEL = "default"


def shown_level(level: str) -> str:
    """A level as pages show it: 'default' in the page's language, any other as written."""
    return gettext("default") if level == DEFAULT_LEVEL else level


@dataclass(frozen=True)
class AxisLevel:
    """One axis of a study (its key as the vary box writes it, `checksums`, and its name as pages show it) and the
    level a line sits at on it."""

    axis: str
    name: str | Promise
    level: str

    @property
    def text(self) -> str:
        """'PostgreSQL 15.2' for the version (a build's name says it), else 'data checksums on'."""
        return self.level if self.axis == VERSION_AXIS else f"{self.name} {shown_level(self.level)}"

    @property
    def key_text(self) -> str:
        """The same, in the vary box's own words for files: 'PostgreSQL 15.2', 'checksums=on'."""
        return self.level if self.axis == VERSION_AXIS else f"{self.axis}={self.level}"


@dataclass(frozen=True)
class LineLevels:
    """A line of a study (its id in the study's points, its label and build version) and its level on each of the
    study's axes, in axis order."""

    line_id: int
    label: str
    version: str
    levels: tuple[AxisLevel, ...]

    def on(self, axis: str) -> AxisLevel:
        return next(level for level in self.levels if level.axis == axis)

    def others(self, axis: str) -> tuple[AxisLevel, ...]:
        return tuple(level for level in self.levels if level.axis != axis)


@dataclass(frozen=True)
class ComparisonColumn:
    """One line compared with its reference line on one axis, the two at the same level of every other axis (the
    context): a column of ratios in a study's tables."""

    axis: AxisLevel
    reference_level: str
    context: tuple[AxisLevel, ...]
    line_id: int
    line_label: str
    reference_line_id: int
    reference_label: str
    previous_version: bool
    is_baseline = False

    @property
    def build_id(self) -> int:
        """The compared line's id, as a build column names its line (the evidence of each difference reads it)."""
        return self.line_id

    @property
    def is_version(self) -> bool:
        return self.axis.axis == VERSION_AXIS

    @property
    def sides(self) -> str:
        """Both sides on the axis: 'PostgreSQL 15.2 / PostgreSQL 13.4', 'on / off'."""
        return f"{shown_level(self.axis.level)} / {shown_level(self.reference_level)}"

    @property
    def ratio_label(self) -> str | Promise:
        """What the ratio is: 前バージョン比 only where the version differs and the reference is the version just
        before, else a ratio between versions, else the axis and both sides ('data checksums on / off')."""
        if self.is_version:
            return _("ratio to the previous version") if self.previous_version else _("ratio between versions")
        return f"{self.axis.name} {self.sides}"

    @property
    def name(self) -> str:
        """What goes under the ratio's label: the versions compared and the context ('PostgreSQL 15.2, CPUs 2')."""
        parts = [self.sides] if self.is_version else []
        return ", ".join([*parts, *(level.text for level in self.context)])

    @property
    def title(self) -> str:
        """The comparison in one line: 'data checksums on / off, PostgreSQL 15.2'; in a study of builds the compared
        build's name alone, as before axes (the baseline is named beside it)."""
        if self.is_version and not self.context:
            return self.line_label
        return f"{self.ratio_label}, {self.name}"

    @property
    def key_text(self) -> str:
        """The column as files name it, untranslated: 'PostgreSQL 15.2 / PostgreSQL 13.4' for a study of builds
        (the report CSV's header as before axes), 'checksums on / off, PostgreSQL 15.2' otherwise."""
        head = f"{self.axis.level} / {self.reference_level}"
        head = head if self.is_version else f"{self.axis.axis} {head}"
        return ", ".join([head, *(level.key_text for level in self.context)])

    @property
    def context_key_text(self) -> str:
        return " ".join(level.key_text for level in self.context)


@dataclass(frozen=True)
class Comparison:
    """One cell compared with the cell that differs from it in the column's axis alone: `point` carries the ratio,
    interval and verdict against `reference`."""

    column: ComparisonColumn
    point: Point
    reference: Point


def comparison_columns(lines: Sequence[LineLevels], baseline_id: int | None) -> list[ComparisonColumn]:
    """Every line off each axis's reference level with its reference line (steps 1 and 2), axis by axis in axis
    order, lines in version order within each."""
    baseline = next((line for line in lines if line.line_id == baseline_id), None)
    if baseline is None:
        return []
    ordered = sorted(lines, key=lambda line: (version_sort_key(line.version), line.label))
    versions = sorted({line.version for line in lines}, key=version_sort_key)
    return [
        _column(line, reference, axis.axis, versions)
        for axis in baseline.levels
        for line in ordered
        for reference in _reference_line(line, axis, lines)
    ]


def _reference_line(line: LineLevels, reference: AxisLevel, lines: Sequence[LineLevels]) -> list[LineLevels]:
    """The line at the reference level of this axis and at the line's level of every other (none or one)."""
    if line.on(reference.axis).level == reference.level:
        return []
    others = line.others(reference.axis)
    return [
        other
        for other in lines
        if other.on(reference.axis).level == reference.level and other.others(reference.axis) == others
    ][:1]


def _column(line: LineLevels, reference: LineLevels, axis: str, versions: Sequence[str]) -> ComparisonColumn:
    older, newer = versions.index(reference.version), versions.index(line.version)
    return ComparisonColumn(
        axis=line.on(axis),
        reference_level=reference.on(axis).level,
        context=line.others(axis),
        line_id=line.line_id,
        line_label=line.label,
        reference_line_id=reference.line_id,
        reference_label=reference.label,
        previous_version=newer == older + 1,
    )


def study_comparisons(
    points: Iterable[Point], lines: Sequence[LineLevels], baseline_id: int | None, comparing: Comparing
) -> list[Comparison]:
    """Each point compared on each axis with the point that differs from it in that axis alone (step 3), column
    by column, points in the order given."""
    points = list(points)
    by_place = {(point.build_id, comparing.place(point)): point for point in points}
    comparisons = []
    for column in comparison_columns(lines, baseline_id):
        for point in points:
            reference = by_place.get((column.reference_line_id, comparing.place(point)))
            if point.build_id == column.line_id and reference is not None:
                comparisons.append(Comparison(column, comparing.pair(point, reference), reference))
    return comparisons


def baseline_comparisons(comparisons: Iterable[Comparison], baseline_id: int | None) -> Mapping[PointKey, Comparison]:
    """The comparison of a point with the baseline's, by the point's key: only a line that differs from the
    baseline in one axis has one (a ratio to a baseline that differs in two axes would say nothing)."""
    return {c.point.key: c for c in comparisons if c.column.reference_line_id == baseline_id}
