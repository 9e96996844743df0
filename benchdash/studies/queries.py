"""The database side of the results: the same figures as `results.py`, aggregated by PostgreSQL.

Only succeeded trials with a TPS count. Every query here groups in SQL, so a page costs a few
queries whatever the number of trials (1,000,000 across 40 studies in bench/pages_and_csv.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import Aggregate, Count, FloatField, Max, Min, QuerySet

from benchdash.inventory.models import Build
from benchdash.studies.models import Scenario, Study, Trial
from benchdash.studies.results import SummaryPoint, compare_with_baseline
from benchdash.trends.index import CurvePoint, ScenarioTrend, StudyRef, VersionLink, scenario_trend


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
    """Median, min, max, n per build x scenario x clients of one study, compared with its baseline.

    One query (served by the index trial_point_idx), then the ratio in Python over a few dozen rows.
    """
    rows = (
        finished_trials()
        .filter(study=study)
        .values("build_id", "build__name", "build__version", "scenario_id", "scenario__slug", "clients")
        .annotate(median=Median("tps"), minimum=Min("tps"), maximum=Max("tps"), n=Count("id"))
        .order_by()
    )
    points = [
        SummaryPoint(
            build_id=row["build_id"],
            build_name=row["build__name"],
            build_version=row["build__version"],
            scenario_id=row["scenario_id"],
            scenario_slug=row["scenario__slug"],
            clients=row["clients"],
            median=row["median"],
            minimum=row["minimum"],
            maximum=row["maximum"],
            n=row["n"],
        )
        for row in rows
    ]
    return compare_with_baseline(points, study.baseline_id)


def trends_data() -> list[ScenarioTrend]:
    """Per scenario with figures: the chained version index, every study's links and its curves.

    Three queries: the medians per study x scenario x build x clients (one GROUP BY over all
    trials), the studies, the scenarios.
    """
    curves_by_scenario = _curves_by_scenario(finished_trials())
    studies = _study_refs(point.study_id for curves in curves_by_scenario.values() for point in curves)
    scenarios = Scenario.objects.filter(id__in=curves_by_scenario).order_by("slug").values_list("id", "slug", "name")
    return [scenario_trend(scenario, studies, curves_by_scenario[scenario[0]]) for scenario in scenarios]


def trend_links(scenario: Scenario) -> list[VersionLink]:
    """Every study's version links for one scenario, oldest study first."""
    curves = _curves_by_scenario(finished_trials().filter(scenario=scenario)).get(scenario.id, [])
    studies = _study_refs(point.study_id for point in curves)
    return scenario_trend((scenario.id, scenario.slug, scenario.name), studies, curves).links


def _curves_by_scenario(trials: QuerySet[Trial]) -> dict[int, list[CurvePoint]]:
    # One aggregate over every finished trial, served by trial_trend_idx (index-only scan).
    rows = list(
        trials.values_list("scenario_id", "study_id", "build_id", "clients").annotate(median=Median("tps")).order_by()
    )
    builds = _builds({row[2] for row in rows})
    curves: dict[int, list[CurvePoint]] = defaultdict(list)
    for scenario_id, study_id, build_id, clients, median in rows:
        name, version = builds[build_id]
        curves[scenario_id].append(CurvePoint(study_id, build_id, name, version, clients, median))
    return curves


def _builds(build_ids: set[int]) -> dict[int, tuple[str, str]]:
    return {
        row[0]: (row[1], row[2]) for row in Build.objects.filter(id__in=build_ids).values_list("id", "name", "version")
    }


def _study_refs(study_ids: Iterable[int]) -> dict[int, StudyRef]:
    rows = Study.objects.filter(id__in=set(study_ids)).values_list("id", "year", "title")
    return {study_id: StudyRef(study_id=study_id, year=year, title=title) for study_id, year, title in rows}
