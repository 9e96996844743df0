"""A version's page: every figure of one major (14) or one minor (14.3) from every study, published and measured,
official or not, by scenario and year."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from benchdash.inventory.models import Build, major_version, version_sort_key, version_sort_range
from benchdash.studies.models import Scenario, Study, StudyPoint
from benchdash.studies.results.compare import Point
from benchdash.studies.results.queries import points_of

Level = tuple[int, str]  # clients, conditions


@dataclass(frozen=True)
class VersionRow:
    """One build of the version in one study (one variant, in a variant study), for one scenario: its figure at each
    of the scenario's levels."""

    study: Study
    label: str
    build_version: str
    cells: list[float | None]


@dataclass(frozen=True)
class VersionScenario:
    slug: str
    name: str
    levels: list[Level]
    rows: list[VersionRow]


@dataclass(frozen=True)
class VersionHistory:
    version: str
    major: str
    is_major: bool
    minors: list[str]  # the versions of the major's registered builds, oldest first
    scenarios: list[VersionScenario]


def version_history(version: str) -> VersionHistory:
    """Everything the page shows: the points of every build of `version`, grouped by scenario, oldest study first."""
    points = points_of(StudyPoint.objects.filter(build__version_sort__range=version_sort_range(version)))
    studies = Study.objects.in_bulk({point.study_id for point in points})
    names = Scenario.objects.filter(id__in={point.scenario_id for point in points}).display_names()
    by_scenario: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_scenario[point.scenario_id].append(point)
    sections = [_scenario(names[scenario_id], found, studies) for scenario_id, found in by_scenario.items()]
    major = major_version(version)
    return VersionHistory(
        version=version,
        major=major,
        is_major=major == version,
        minors=_minors(major),
        scenarios=sorted(sections, key=lambda section: section.slug),
    )


def _scenario(name: str, points: list[Point], studies: dict[int, Study]) -> VersionScenario:
    levels = sorted({(point.clients, point.conditions) for point in points})
    by_row: dict[tuple[int, str, str], dict[Level, float]] = defaultdict(dict)
    for point in points:
        by_row[(point.study_id, point.label, point.build_version)][(point.clients, point.conditions)] = point.figure
    rows = [
        VersionRow(studies[study_id], label, build_version, [figures.get(level) for level in levels])
        for (study_id, label, build_version), figures in by_row.items()
    ]
    rows.sort(key=lambda row: (row.study.year, row.study.pk, version_sort_key(row.build_version), row.label))
    return VersionScenario(points[0].scenario_slug, name, levels, rows)


def _minors(major: str) -> list[str]:
    versions: Iterable[str] = Build.objects.of_version(major).values_list("version", flat=True).distinct()
    return sorted(set(versions), key=version_sort_key)
