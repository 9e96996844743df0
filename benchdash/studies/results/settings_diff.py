"""The postgresql.conf settings (SHOW ALL, as each line's trials read them) that differ between a study's lines: its
builds, or in a variant study its variants (lines.py).

A default that changed between majors (for example `vacuum_buffer_usage_limit`, or `huge_pages`) can explain a
difference the study attributes to the build, and a variant's own settings are what it varies; the study page lists
every such setting beside the comparison. Pure functions over plain data, and the one query that fetches a trial's
settings per line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchdash.studies.models import Study, Trial, Variant
from benchdash.studies.results.lines import StudyLines

# What the engine sets itself, per cluster (engine's own lines: ports, paths), and what names the version: these
# differ between any two builds and say nothing about performance.
ENGINE_OWN = frozenset(
    {
        "config_file",
        "data_directory",
        "external_pid_file",
        "hba_file",
        "ident_file",
        "listen_addresses",
        "port",
        "unix_socket_directories",
        "server_version",
        "server_version_num",
    }
)


@dataclass(frozen=True)
class SettingDifference:
    """One setting and its value in each line's trials, in the order of the lines given; None: the line's major
    has no such setting."""

    name: str
    values: tuple[str | None, ...]

    @property
    def in_every_build(self) -> bool:
        return None not in self.values

    @property
    def cells(self) -> list[tuple[str | None, bool]]:
        """Per line, its value and whether it differs from the first line's (the baseline's): highlighted."""
        return [(value, value != self.values[0]) for value in self.values]


def settings_differences(settings_by_build: Sequence[Mapping[str, str]]) -> list[SettingDifference]:
    """The settings whose value is not the same in every build (a setting one major lacks counts), by name; the
    engine's own lines left out. Builds whose trials read no settings are left out by the caller."""
    names = sorted(set().union(*settings_by_build) - ENGINE_OWN) if settings_by_build else []
    differences = []
    for name in names:
        values = tuple(settings.get(name) for settings in settings_by_build)
        if len(set(values)) > 1:
            differences.append(SettingDifference(name, values))
    return differences


def study_settings_by_line(study: Study, lines: StudyLines) -> dict[int, dict[str, str]]:
    """The settings one succeeded trial of each line read (the first in run order): line id -> SHOW ALL."""
    field = lines.trial_field
    rows = (
        Trial.objects.filter(study=study, status=Trial.Status.SUCCEEDED, published=False)
        .exclude(server_settings={})
        .order_by(field, "position")
        .distinct(field)
        .values_list(field, "server_settings")
    )
    return dict(rows)


@dataclass(frozen=True)
class SettingsDiffTable:
    """The study page's table: the lines' names as columns (the baseline first), a row per differing setting."""

    lines: list[str]
    differences: list[SettingDifference]

    @property
    def in_every_build(self) -> list[SettingDifference]:
        return [difference for difference in self.differences if difference.in_every_build]

    @property
    def in_some_builds(self) -> list[SettingDifference]:
        return [difference for difference in self.differences if not difference.in_every_build]


def study_settings_diff(study: Study, lines: StudyLines) -> SettingsDiffTable | None:
    """The differences between the lines of a study that ran; None before two lines' trials read their settings."""
    by_line = study_settings_by_line(study, lines)
    named = _variant_names(study, by_line) if lines.by_variant else _build_names(study, by_line)
    if len(named) < 2:
        return None
    differences = settings_differences([by_line[line_id] for line_id, _name in named])
    return SettingsDiffTable([name for _line_id, name in named], differences)


def _build_names(study: Study, line_ids: Mapping[int, object]) -> list[tuple[int, str]]:
    builds = sorted(
        study.builds.filter(pk__in=line_ids),
        key=lambda build: (build.pk != study.baseline_id, build.version_sort, build.name),
    )
    return [(build.pk, build.name) for build in builds]


def _variant_names(study: Study, line_ids: Mapping[int, object]) -> list[tuple[int, str]]:
    variants = Variant.objects.filter(study=study, pk__in=line_ids).order_by("-baseline", "position", "pk")
    return list(variants.values_list("pk", "label"))
