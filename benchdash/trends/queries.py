"""The database side of the trends: the points of official studies, read from StudyPoint, chained per scenario.

Only official studies count (Study.official): a smoke test or an experiment never moves the trends.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping

from django.db.models import Q, QuerySet

from benchdash.studies.models import Scenario, Study, StudyPoint, Variant
from benchdash.studies.results.compare import Point
from benchdash.studies.results.queries import points_of
from benchdash.trends.index import ScenarioTrend, StudyRef, VersionLink, scenario_trend


def trends_data() -> list[ScenarioTrend]:
    """Per scenario with figures of official studies: the chained version index, every study's links and its points.

    Three queries whatever the number of trials: the points, the studies, the scenarios.
    """
    by_scenario = _points_by_scenario(official_points())
    studies = _study_refs(point.study_id for points in by_scenario.values() for point in points)
    scenarios = Scenario.objects.filter(id__in=by_scenario).order_by("slug")
    return [_trend(scenario, studies, by_scenario[scenario.pk]) for scenario in scenarios]


def trend_of(scenario: Scenario) -> ScenarioTrend:
    """One scenario's trend: its chained index and every official study's links."""
    points = _points_by_scenario(official_points().filter(scenario=scenario)).get(scenario.id, [])
    studies = _study_refs(point.study_id for point in points)
    return _trend(scenario, studies, points)


def _trend(scenario: Scenario, studies: Mapping[int, StudyRef], points: list[Point]) -> ScenarioTrend:
    return scenario_trend((scenario.id, scenario.slug, scenario.display_name), studies, points)


def trend_links(scenario: Scenario) -> list[VersionLink]:
    """Every official study's version links for one scenario, oldest study first."""
    return trend_of(scenario).links


def official_points() -> QuerySet[StudyPoint]:
    """The points that count in the trends: those of official studies, and in a study of variants only those of
    the variants that differ from its baseline variant in their build alone (a 9.3 -> 9.4 link of a study that
    also varies checksums or CPUs compares the builds at the baseline's checksums or CPUs, never across them)."""
    return StudyPoint.objects.filter(study__official=True).filter(
        Q(variant__isnull=True) | Q(variant_id__in=_builds_alone_variants())
    )


def _builds_alone_variants() -> list[int]:
    rows = Variant.objects.filter(study__official=True).values("id", "study_id", "baseline", *Variant.CONDITIONS)
    conditions = {row["id"]: json.dumps([row[name] for name in Variant.CONDITIONS], sort_keys=True) for row in rows}
    baselines = {row["study_id"]: conditions[row["id"]] for row in rows if row["baseline"]}
    return [row["id"] for row in rows if baselines.get(row["study_id"], conditions[row["id"]]) == conditions[row["id"]]]


def _points_by_scenario(study_points: QuerySet[StudyPoint]) -> dict[int, list[Point]]:
    by_scenario: dict[int, list[Point]] = defaultdict(list)
    for point in points_of(study_points, with_runs=True):  # the runs draw each link's interval
        by_scenario[point.scenario_id].append(point)
    return by_scenario


def _study_refs(study_ids: Iterable[int]) -> dict[int, StudyRef]:
    fields = ("id", "year", "title", "statistic", "year_inferred", "official_reason")
    rows = Study.objects.filter(id__in=set(study_ids)).values_list(*fields)
    return {row[0]: StudyRef(*row) for row in rows}
