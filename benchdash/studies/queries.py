"""The database side of the results: the figures of `results.py`, read from the maintained study points.

Pages read StudyPoint (one row per study x build x scenario x clients, kept by `points.py` whenever
trials change), never the trials themselves: 1,000,000 trials across 40 studies make 1,600 points
(bench/pages_and_csv.py). Only succeeded trials with a TPS count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import Aggregate, F, FloatField, QuerySet

from benchdash.studies.models import Scenario, Study, StudyPoint, Trial
from benchdash.studies.results import SummaryPoint, compare_with_baseline
from benchdash.trends.index import CurvePoint, ScenarioTrend, StudyRef, VersionLink, scenario_trend

POINT_COLUMNS = ("study_id", "scenario_id", "build_id", "build__name", "build__version", "clients", "median")


class Median(Aggregate):
    """percentile_cont(0.5): the median, interpolated between the two middle values of an even count."""

    function = "percentile_cont"
    name = "Median"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def finished_trials() -> QuerySet[Trial]:
    """The trials whose TPS counts: succeeded (measured or published) and with a figure."""
    return Trial.objects.filter(status=Trial.Status.SUCCEEDED, tps__isnull=False)


def study_summary(study: Study) -> list[SummaryPoint]:
    """Median, min, max, n per build x scenario x clients of one study, compared with its baseline."""
    rows = StudyPoint.objects.filter(study=study).values(
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
    points = [SummaryPoint(**row) for row in rows]
    return compare_with_baseline(points, study.baseline_id)


def trends_data() -> list[ScenarioTrend]:
    """Per scenario with figures: the chained version index, every study's links and its curves.

    Three queries whatever the number of trials: the points, the studies, the scenarios.
    """
    curves_by_scenario = _curves_by_scenario(StudyPoint.objects.all())
    studies = _study_refs(point.study_id for curves in curves_by_scenario.values() for point in curves)
    scenarios = Scenario.objects.filter(id__in=curves_by_scenario).order_by("slug").values_list("id", "slug", "name")
    return [scenario_trend(scenario, studies, curves_by_scenario[scenario[0]]) for scenario in scenarios]


def trend_links(scenario: Scenario) -> list[VersionLink]:
    """Every study's version links for one scenario, oldest study first."""
    curves = _curves_by_scenario(StudyPoint.objects.filter(scenario=scenario)).get(scenario.id, [])
    studies = _study_refs(point.study_id for point in curves)
    return scenario_trend((scenario.id, scenario.slug, scenario.name), studies, curves).links


def _curves_by_scenario(points: QuerySet[StudyPoint]) -> dict[int, list[CurvePoint]]:
    curves: dict[int, list[CurvePoint]] = defaultdict(list)
    for study_id, scenario_id, build_id, name, version, clients, median in points.values_list(*POINT_COLUMNS):
        curves[scenario_id].append(CurvePoint(study_id, build_id, name, version, clients, median))
    return curves


def _study_refs(study_ids: Iterable[int]) -> dict[int, StudyRef]:
    rows = Study.objects.filter(id__in=set(study_ids)).values_list("id", "year", "title")
    return {study_id: StudyRef(study_id=study_id, year=year, title=title) for study_id, year, title in rows}
