"""The database side of the results: the points of `results.py`, read from the maintained StudyPoint rows.

Pages read StudyPoint (one row per study x build x scenario x clients, kept by `points.py` whenever
trials change), never the trials themselves: 1,000,000 trials across 40 studies make 1,600 points
(bench/pages_and_csv.py). Only counted trials (succeeded, with a TPS) make a point.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import Aggregate, F, FloatField, QuerySet

from benchdash.studies.models import Scenario, Study, StudyPoint, Trial
from benchdash.studies.results import Point, compare_with_baseline
from benchdash.trends.index import ScenarioTrend, StudyRef, VersionLink, scenario_trend


class Median(Aggregate):
    """percentile_cont(0.5): the median, interpolated between the two middle values of an even count."""

    function = "percentile_cont"
    name = "Median"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def counted_trials() -> QuerySet[Trial]:
    """The trials whose TPS counts in a point: succeeded (measured or published) and with a figure."""
    return Trial.objects.filter(status=Trial.Status.SUCCEEDED, tps__isnull=False)


def points_of(study_points: QuerySet[StudyPoint]) -> list[Point]:
    """StudyPoint rows as plain Points (one query, build and scenario names joined in)."""
    rows = study_points.values(
        "study_id",
        "build_id",
        "scenario_id",
        "clients",
        "median",
        "minimum",
        "maximum",
        "n",
        build_name=F("build__name"),
        build_version=F("build__version"),
        scenario_slug=F("scenario__slug"),
    )
    return [Point(**row) for row in rows]


def study_summary(study: Study) -> list[Point]:
    """The points of one study (median, min, max, n per build x scenario x clients), compared with its baseline."""
    return compare_with_baseline(points_of(StudyPoint.objects.filter(study=study)), study.baseline_id)


def trends_data() -> list[ScenarioTrend]:
    """Per scenario with figures: the chained version index, every study's links and its points.

    Three queries whatever the number of trials: the points, the studies, the scenarios.
    """
    by_scenario = _points_by_scenario(StudyPoint.objects.all())
    studies = _study_refs(point.study_id for points in by_scenario.values() for point in points)
    scenarios = Scenario.objects.filter(id__in=by_scenario).order_by("slug").values_list("id", "slug", "name")
    return [scenario_trend(scenario, studies, by_scenario[scenario[0]]) for scenario in scenarios]


def trend_links(scenario: Scenario) -> list[VersionLink]:
    """Every study's version links for one scenario, oldest study first."""
    points = _points_by_scenario(StudyPoint.objects.filter(scenario=scenario)).get(scenario.id, [])
    studies = _study_refs(point.study_id for point in points)
    return scenario_trend((scenario.id, scenario.slug, scenario.name), studies, points).links


def _points_by_scenario(study_points: QuerySet[StudyPoint]) -> dict[int, list[Point]]:
    by_scenario: dict[int, list[Point]] = defaultdict(list)
    for point in points_of(study_points):
        by_scenario[point.scenario_id].append(point)
    return by_scenario


def _study_refs(study_ids: Iterable[int]) -> dict[int, StudyRef]:
    rows = Study.objects.filter(id__in=set(study_ids)).values_list("id", "year", "title")
    return {study_id: StudyRef(study_id=study_id, year=year, title=title) for study_id, year, title in rows}
