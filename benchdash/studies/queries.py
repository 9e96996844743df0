"""The database side of the results: the same figures as `results.py`, aggregated by PostgreSQL.

Only succeeded trials with a TPS count. Every query here groups in SQL, so a page costs a few
queries whatever the number of trials (1,000,000 across 40 studies in bench/pages_and_csv.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.core.cache import cache
from django.db import connection
from django.db.models import Aggregate, Count, FloatField, Max, Min, QuerySet

from benchdash.inventory.models import Build
from benchdash.studies.models import Scenario, Study, Trial
from benchdash.studies.results import SummaryPoint, compare_with_baseline
from benchdash.trends.index import CurvePoint, ScenarioTrend, StudyRef, VersionLink, scenario_trend

TRENDS_CACHE_S = 600


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

    One aggregate, an index-only scan of trial_median_idx in GROUP BY order; names are looked up
    afterwards rather than joined, so that the join does not break that order.
    """
    rows = list(
        finished_trials()
        .filter(study=study)
        .values_list("scenario_id", "build_id", "clients")
        .annotate(median=Median("tps"), minimum=Min("tps"), maximum=Max("tps"), n=Count("tps"))
        .order_by()
    )
    builds = _builds({row[1] for row in rows})
    slugs = dict(Scenario.objects.filter(id__in={row[0] for row in rows}).values_list("id", "slug"))
    points = [
        SummaryPoint(
            build_id=build_id,
            build_name=builds[build_id][0],
            build_version=builds[build_id][1],
            scenario_id=scenario_id,
            scenario_slug=slugs[scenario_id],
            clients=clients,
            median=median,
            minimum=minimum,
            maximum=maximum,
            n=n,
        )
        for scenario_id, build_id, clients, median, minimum, maximum, n in rows
    ]
    return compare_with_baseline(points, study.baseline_id)


# The trends' cache key: the trials' revision, and a digest of the small tables whose names and years
# the trends show (studies, builds, scenarios: tens to hundreds of rows, digested in well under 1 ms).
_TRENDS_KEY_SQL = """
SELECT concat_ws(':', (SELECT last_value FROM studies_trial_revision),
    (SELECT md5(string_agg(concat_ws('|', id, year, title), ',' ORDER BY id)) FROM studies_study),
    (SELECT md5(string_agg(concat_ws('|', id, name, version), ',' ORDER BY id)) FROM inventory_build),
    (SELECT md5(string_agg(concat_ws('|', id, slug, name), ',' ORDER BY id)) FROM studies_scenario))
"""


def trends_data() -> list[ScenarioTrend]:
    """Per scenario with figures: the chained version index, every study's links and its curves.

    Cached under the trials' revision (migration 0004: PostgreSQL bumps it on every write that can
    move a median) and a digest of the studies, builds and scenarios, so the 1,000,000-trial
    aggregate runs once per change, not once per page view. The revision moves when the writing
    statement runs, a moment before its commit; a page read in that moment may cache the old figures
    under the new key, hence the expiry as a backstop.
    """
    with connection.cursor() as cursor:
        cursor.execute(_TRENDS_KEY_SQL)
        key = f"benchdash:trends:{cursor.fetchone()[0]}"
    trends = cache.get(key)
    if trends is None:
        trends = _trends_from_database()
        cache.set(key, trends, TRENDS_CACHE_S)
    return trends


def trials_revision() -> int:
    """A number that changes whenever a trial is inserted, deleted, or has a median-relevant column updated."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value FROM studies_trial_revision")
        return cursor.fetchone()[0]


def _trends_from_database() -> list[ScenarioTrend]:
    # Three queries: the medians per study x scenario x build x clients (one GROUP BY over all
    # trials), the studies, the scenarios.
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
    # Grouped in the order of trial_median_idx: an index-only scan feeds the aggregate, no sort.
    rows = list(
        trials.values_list("study_id", "scenario_id", "build_id", "clients").annotate(median=Median("tps")).order_by()
    )
    builds = _builds({row[2] for row in rows})
    curves: dict[int, list[CurvePoint]] = defaultdict(list)
    for study_id, scenario_id, build_id, clients, median in rows:
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
