"""A study's axes, read from its variants: each line's level on every axis along which the study's lines differ
(comparisons.py compares two lines that differ in exactly one of them).

A study of builds has one axis, the version. A variant study's axes are the variant fields that take more than one
value among its variants (the vary box's axes: checksums, wal_segsize, locale, encoding, fillfactor, cpus, host,
transactions, connect, setting:NAME), and the version where its builds differ; a field left empty reads as its
default (the study's setting, the study's DB host, initdb's or pgbench's default), written `default`. An A/A duet's
two sides differ in nothing but their side (A, the baseline, or B): that is its one axis, so that B is compared with A.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import Arrangement, Study, Variant
from benchdash.studies.results.compare import Point
from benchdash.studies.results.comparisons import DEFAULT_LEVEL, VERSION_AXIS, AxisLevel, LineLevels
from benchdash.studies.results.lines import StudyLines
from benchdash.studies.variant_design import SETTING_PREFIX

# axis -> the Variant field behind it and the field's own name, in the order the axes are shown (the version first,
# settings last)
AXIS_FIELDS: dict[str, tuple[str, str | Promise]] = {
    "checksums": ("data_checksums", _("data checksums")),
    "wal_segsize": ("wal_segment_mb", _("WAL segment size (MB)")),
    "locale": ("locale", _("locale")),
    "encoding": ("encoding", _("encoding")),
    "fillfactor": ("fillfactor", _("fillfactor")),
    "cpus": ("cpus", _("CPUs")),
    "host": ("db_host", _("DB host")),
    "transactions": ("transactions", _("transactions per client (-t)")),
    "connect": ("connect_each_transaction", _("new connection per transaction (-C)")),
}
SIDE_AXIS = "side"


def study_line_levels(study: Study, lines: StudyLines, points: Iterable[Point]) -> list[LineLevels]:
    """Each line of the study and its level on each of its axes: the builds of a study of builds (from its points),
    or the study's variants."""
    if not lines.by_variant:
        builds = {point.build_id: point for point in points}
        return [
            LineLevels(build_id, point.label, point.build_version, (_version(point.build_name),))
            for build_id, point in builds.items()
        ]
    variants = list(Variant.objects.filter(study=study).select_related("build", "db_host"))
    facts = {variant.pk: _variant_facts(variant, study) for variant in variants}
    axes = varied_axes(facts.values())
    return [
        LineLevels(
            variant.pk,
            variant.label,
            variant.build.version,
            tuple(AxisLevel(axis, axis_name(axis), facts[variant.pk].get(axis, _level(None))) for axis in axes),
        )
        for variant in variants
    ]


def varied_axes(facts: Iterable[dict[str, str]]) -> list[str]:
    """The axes on which the lines' levels differ, in axis order."""
    rows = list(facts)
    known = [
        VERSION_AXIS,
        *AXIS_FIELDS,
        SIDE_AXIS,
        *sorted({axis for row in rows for axis in row if axis.startswith(SETTING_PREFIX)}),
    ]
    return [axis for axis in known if len({row.get(axis) for row in rows}) > 1]


def axis_name(axis: str) -> str | Promise:
    """The axis as pages name it: the variant field's own name ('data checksums'), a setting by its name."""
    if axis == VERSION_AXIS:
        return _("version")
    if axis == SIDE_AXIS:
        return _("side of the A/A duet")
    if axis.startswith(SETTING_PREFIX):
        return axis.removeprefix(SETTING_PREFIX)
    return AXIS_FIELDS[axis][1]


def _version(build_name: str) -> AxisLevel:
    return AxisLevel(VERSION_AXIS, axis_name(VERSION_AXIS), build_name)


def _variant_facts(variant: Variant, study: Study) -> dict[str, str]:
    host = variant.host_for(study)
    facts = {axis: _level(getattr(variant, field)) for axis, (field, _name) in AXIS_FIELDS.items()}
    settings = variant.settings_over(study.pg_settings)
    return {
        VERSION_AXIS: variant.build.name,
        **facts,
        "host": host.name if host else _level(None),
        **{SETTING_PREFIX + name: _level(value) for name, value in settings.items()},
        **({SIDE_AXIS: "A" if variant.baseline else "B"} if study.arrangement == Arrangement.DUET_AA else {}),
    }


def _level(value: Any) -> str:
    """A field's value as the vary box writes it; an empty field is its default."""
    if value is None or value == "":
        return DEFAULT_LEVEL
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
