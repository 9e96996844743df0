"""The SQL aggregation gives the same figures as the pure functions on the same trials."""

import random
import statistics

import pytest
from django.utils import timezone

from benchdash.studies.models import Scenario, Trial
from benchdash.studies.queries import study_summary, trend_links, trends_data, trials_revision
from benchdash.studies.results import TpsRow, summarize
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db


def _fill(study, builds, scenarios, clients_levels, repetitions, rng):
    position = 0
    for build in builds:
        for scenario in scenarios:
            for clients in clients_levels:
                for repetition in range(1, repetitions + 1):
                    tps = rng.uniform(100, 10000)
                    TrialFactory(
                        study=study,
                        build=build,
                        scenario=scenario,
                        clients=clients,
                        repetition=repetition,
                        position=position,
                        status=Trial.Status.SUCCEEDED,
                        tps=tps,
                    )
                    position += 1
    return position


@pytest.fixture
def two_studies():
    rng = random.Random(7)
    v12, v13, v14 = BuildFactory(version="12.6"), BuildFactory(version="13.4"), BuildFactory(version="14.0")
    reference, update = ScenarioFactory(slug="reference"), ScenarioFactory(slug="update")
    first = StudyFactory(title="2020", year=2020, baseline=v12)
    second = StudyFactory(title="2021", year=2021, baseline=v13)
    _fill(first, [v12, v13], [reference], [1, 16], 3, rng)
    count = _fill(second, [v13, v14], [reference, update], [1, 16, 32], 4, rng)
    # a failed run with a figure and a pending one: neither counts
    TrialFactory(study=second, build=v14, scenario=reference, clients=1, repetition=8, position=count, tps=1.0)
    Trial.objects.filter(position=count, study=second).update(status=Trial.Status.FAILED)
    TrialFactory(study=second, build=v14, scenario=reference, clients=1, repetition=9, position=count + 1)
    return first, second


def _rows_in_python(study):
    trials = Trial.objects.filter(study=study, status=Trial.Status.SUCCEEDED).select_related("build", "scenario")
    return [
        TpsRow(t.build_id, t.build.name, t.build.version, t.scenario_id, t.scenario.slug, t.clients, t.tps)
        for t in trials
    ]


def test_the_study_summary_matches_the_pure_summary(two_studies):
    _, study = two_studies
    from_sql = study_summary(study)
    in_python = summarize(_rows_in_python(study), study.baseline_id)
    assert len(from_sql) == 2 * 2 * 3
    assert [p.key for p in from_sql] == [p.key for p in in_python]
    for sql_point, python_point in zip(from_sql, in_python, strict=True):
        assert sql_point.median == pytest.approx(python_point.median)
        assert (sql_point.minimum, sql_point.maximum, sql_point.n) == (
            python_point.minimum,
            python_point.maximum,
            python_point.n,
        )
        assert sql_point.ratio == pytest.approx(python_point.ratio)
        assert sql_point.ranges_disjoint == python_point.ranges_disjoint


def test_the_trends_chain_the_two_studies_medians(two_studies):
    first, second = two_studies
    [reference] = [trend for trend in trends_data() if trend.scenario_slug == "reference"]
    medians = {}
    for study in (first, second):
        for row in _rows_in_python(study):
            if row.scenario_slug == "reference":
                medians.setdefault((study.id, row.build_version, row.clients), []).append(row.tps)

    def ratio(study, older, newer, levels):
        per_level = [
            statistics.median(medians[(study.id, newer, c)]) / statistics.median(medians[(study.id, older, c)])
            for c in levels
        ]
        return statistics.geometric_mean(per_level)

    assert [p.version for p in reference.index] == ["12", "13", "14"]
    index_13 = 100 * ratio(first, "12.6", "13.4", [1, 16])
    assert [p.index for p in reference.index] == pytest.approx(
        [100.0, index_13, index_13 * ratio(second, "13.4", "14.0", [1, 16, 32])]
    )
    assert [ref.year for ref in reference.studies] == [2020, 2021]
    assert len(reference.curves) == 2 * 2 + 2 * 3


def test_the_update_scenario_has_one_link_from_the_newer_study(two_studies):
    _, second = two_studies
    links = trend_links(Scenario.objects.get(slug="update"))
    assert [(link.study.study_id, link.pair) for link in links] == [(second.id, ("13", "14"))]


def test_the_cached_trends_follow_a_changed_figure(two_studies):
    _, second = two_studies
    before = {p.version: p.index for p in trends_data()[0].index}
    trial = Trial.objects.filter(study=second, status=Trial.Status.SUCCEEDED, build__version="14.0").first()
    Trial.objects.filter(study=second, build__version="14.0").update(tps=trial.tps * 10)
    after = {p.version: p.index for p in trends_data()[0].index}
    assert after["13"] == pytest.approx(before["13"])
    assert after["14"] != pytest.approx(before["14"])


def test_a_heartbeat_does_not_move_the_revision(two_studies):
    _, second = two_studies
    revision = trials_revision()
    Trial.objects.filter(study=second).update(heartbeat_at=timezone.now())
    assert trials_revision() == revision
    Trial.objects.filter(study=second, repetition=1).update(tps=5.0)
    assert trials_revision() > revision


def test_the_cached_trends_follow_a_renamed_study(two_studies):
    first, _ = two_studies
    assert "2020" in [ref.title for ref in trends_data()[0].studies]
    first.title = "2020 年度"
    first.save()
    assert [ref.title for ref in trends_data()[0].studies] == ["2020 年度", "2021"]


def test_trends_cached_in_an_earlier_test_do_not_leak_into_an_empty_store():
    assert trends_data() == []
