"""The postgresql.conf settings (SHOW ALL, as each build's trials read them) that differ between a study's builds.

A default that changed between majors (for example `vacuum_buffer_usage_limit`, or `huge_pages`) can explain a
difference the study attributes to the build; the study page lists every such setting beside the comparison. Pure
functions over plain data, and the one query that fetches a trial's settings per build.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchdash.studies.models import Study, Trial

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
    """One setting and its value in each build's trials, in the order of the builds given; None: the build's
    major has no such setting."""

    name: str
    values: tuple[str | None, ...]

    @property
    def in_every_build(self) -> bool:
        return None not in self.values

    @property
    def cells(self) -> list[tuple[str | None, bool]]:
        """Per build, its value and whether it differs from the first build's (the baseline's): highlighted."""
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


def study_settings_by_build(study: Study) -> dict[int, dict[str, str]]:
    """The settings one succeeded trial of each build read (the first in run order): build id -> SHOW ALL."""
    rows = (
        Trial.objects.filter(study=study, status=Trial.Status.SUCCEEDED, published=False)
        .exclude(server_settings={})
        .order_by("build_id", "position")
        .distinct("build_id")
        .values_list("build_id", "server_settings")
    )
    return dict(rows)


@dataclass(frozen=True)
class SettingsDiffTable:
    """The study page's table: build names as columns (the baseline first), a row per differing setting."""

    builds: list[str]
    differences: list[SettingDifference]

    @property
    def in_every_build(self) -> list[SettingDifference]:
        return [difference for difference in self.differences if difference.in_every_build]

    @property
    def in_some_builds(self) -> list[SettingDifference]:
        return [difference for difference in self.differences if not difference.in_every_build]


def study_settings_diff(study: Study) -> SettingsDiffTable | None:
    """The differences between the builds of a study that ran; None before two builds' trials read their settings."""
    by_build = study_settings_by_build(study)
    builds = sorted(
        study.builds.filter(pk__in=by_build),
        key=lambda build: (build.pk != study.baseline_id, build.version_sort, build.name),
    )
    if len(builds) < 2:
        return None
    return SettingsDiffTable(
        [build.name for build in builds], settings_differences([by_build[build.pk] for build in builds])
    )
