"""The study points give the medians and ranges of the counted trials, and follow them."""

import random
import statistics
from pathlib import Path

import pytest

from benchdash.inventory.models import Build
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.models import Scenario, Study, StudyPoint, Trial
from benchdash.studies.results.queries import study_results
from benchdash.trends.importer import import_published_results
from benchdash.trends.queries import trend_links, trends_data
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory, succeeded_runs
from workers.spec import TrialOutcome

SHIPPED_CSV = Path(__file__).resolve().parents[2] / "data" / "published_results.csv"

pytestmark = pytest.mark.django_db


def _fill(study, builds, scenarios, clients_levels, repetitions, rng):
    for scenario in scenarios:
        figures = {
            (build, clients): [rng.uniform(100, 10000) for _ in range(repetitions)]
            for build in builds
            for clients in clients_levels
        }
        succeeded_runs(study, scenario, figures)


@pytest.fixture
def two_studies():
    rng = random.Random(7)
    v12, v13, v14 = BuildFactory(version="12.6"), BuildFactory(version="13.4"), BuildFactory(version="14.0")
    reference, update = ScenarioFactory(slug="reference"), ScenarioFactory(slug="update")
    first = StudyFactory(title="2020", year=2020, baseline=v12, status=Study.Status.DONE, official=True)
    second = StudyFactory(title="2021", year=2021, baseline=v13, status=Study.Status.DONE, official=True)
    _fill(first, [v12, v13], [reference], [1, 16], 3, rng)
    _fill(second, [v13, v14], [reference, update], [1, 16, 32], 4, rng)
    # a failed run with a figure and a pending one: neither counts
    failed = TrialFactory(study=second, build=v14, scenario=reference, clients=1, repetition=8, tps=1.0)
    Trial.objects.filter(pk=failed.pk).update(status=Trial.Status.FAILED)
    TrialFactory(study=second, build=v14, scenario=reference, clients=1, repetition=9)
    return first, second


def _counted_tps(study):
    """The TPS of each point's counted trials, read off the trials one by one."""
    counted = Trial.objects.filter(study=study, status=Trial.Status.SUCCEEDED, tps__isnull=False)
    runs = {}
    for trial in counted:
        runs.setdefault((study.id, trial.build_id, trial.scenario_id, trial.clients, trial.conditions), []).append(
            trial.tps
        )
    return runs


def test_the_study_results_are_the_medians_and_ranges_of_the_counted_trials(two_studies):
    _, study = two_studies
    results = study_results(study)
    runs = _counted_tps(study)
    assert len(results) == 2 * 2 * 3
    assert {point.key for point in results} == set(runs)
    for point in results:
        tps = sorted(runs[point.key])
        assert point.median == pytest.approx(statistics.median(tps))
        assert (point.minimum, point.maximum, point.n, point.runs) == (tps[0], tps[-1], len(tps), pytest.approx(tps))
    baselines = {(p.scenario_id, p.clients): p.median for p in results if p.build_id == study.baseline_id}
    for point in results:
        expected = (
            None
            if point.build_id == study.baseline_id
            else point.median / baselines[(point.scenario_id, point.clients)]
        )
        assert point.ratio == pytest.approx(expected)


def test_the_trends_chain_the_two_studies_medians(two_studies):
    first, second = two_studies
    [reference] = [trend for trend in trends_data() if trend.scenario_slug == "reference"]
    medians = {}
    for study in (first, second):
        for trial in Trial.objects.filter(study=study, status=Trial.Status.SUCCEEDED, scenario__slug="reference"):
            medians.setdefault((study.id, trial.build.version, trial.clients), []).append(trial.tps)

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
    assert len(reference.points) == 2 * 2 + 2 * 3


def test_the_update_scenario_has_one_link_from_the_newer_study(two_studies):
    _, second = two_studies
    links = trend_links(Scenario.objects.get(slug="update"))
    assert [(link.study.study_id, link.pair) for link in links] == [(second.id, ("13", "14"))]


def test_the_trends_follow_a_trial_that_finishes(two_studies):
    _, second = two_studies
    before = {p.version: p.index for p in trends_data()[0].index}
    v14 = Build.objects.get(version="14.0")
    reference = Scenario.objects.get(slug="reference")
    trial = TrialFactory(
        study=second, build=v14, scenario=reference, clients=16, repetition=5, status=Trial.Status.RUNNING, attempts=1
    )
    point = StudyPoint.objects.get(study=second, build=v14, scenario=reference, clients=16)

    trial_finish(trial=trial, outcome=TrialOutcome(ok=True, tps=1_000_000.0))

    after_finish = StudyPoint.objects.get(pk=point.pk)
    tps = sorted(
        Trial.objects.filter(study=second, build=v14, scenario=reference, clients=16, status="succeeded").values_list(
            "tps", flat=True
        )
    )
    assert (after_finish.n, after_finish.maximum) == (point.n + 1, 1_000_000.0)
    assert after_finish.median == pytest.approx(statistics.median(tps))
    assert after_finish.median != pytest.approx(point.median)
    after = {p.version: p.index for p in trends_data()[0].index}
    assert after["13"] == pytest.approx(before["13"])
    assert after["14"] > before["14"]


def test_a_failed_finish_leaves_the_point_alone(two_studies):
    _, second = two_studies
    v14 = Build.objects.get(version="14.0")
    reference = Scenario.objects.get(slug="reference")
    trial = TrialFactory(
        study=second, build=v14, scenario=reference, clients=32, repetition=6, status=Trial.Status.RUNNING, attempts=9
    )
    point = StudyPoint.objects.get(study=second, build=v14, scenario=reference, clients=32)

    trial_finish(trial=trial, outcome=TrialOutcome(ok=False, error="pgbench aborted", tps=1.0))

    assert Trial.objects.get(pk=trial.pk).status == Trial.Status.FAILED
    unchanged = StudyPoint.objects.get(pk=point.pk)
    assert (unchanged.median, unchanged.n) == (point.median, point.n)


def test_the_trends_follow_a_renamed_study(two_studies):
    first, _ = two_studies
    assert "2020" in [ref.title for ref in trends_data()[0].studies]
    first.title = "2020 年度"
    first.save()
    assert [ref.title for ref in trends_data()[0].studies] == ["2020 年度", "2021"]


def test_an_imported_history_has_its_points(db):
    ScenarioFactory(slug="pgecons-reference", builtin="")
    ScenarioFactory(slug="pgecons-update", builtin="")
    ScenarioFactory(slug="pgbench-tpcb", builtin=Scenario.Builtin.TPCB)

    import_published_results(data=SHIPPED_CSV.read_bytes())

    study = Study.objects.get(year=2021)
    at_one_client = {
        point.build.version: (point.median, point.minimum, point.maximum, point.n)
        for point in StudyPoint.objects.filter(study=study, clients=1).select_related("build")
    }
    # medians of 3 runs as the source says; their range is not published
    assert at_one_client == {"13.4": (437.2413, None, None, 3), "14.0": (412.9373, None, None, 3)}
    assert StudyPoint.objects.filter(study=study).count() == study.trials.count() == 16
    summary = {(p.build_version, p.clients): p.ratio_percent for p in study_results(study)}
    assert summary[("14.0", 1)] == 94
    assert {p.ranges_disjoint for p in study_results(study)} == {None}


def test_an_imported_history_keeps_runs_that_differ_in_transactions_per_client_apart(db):
    ScenarioFactory(slug="pgecons-reference", builtin="")
    ScenarioFactory(slug="pgecons-update", builtin="")
    ScenarioFactory(slug="pgbench-tpcb", builtin=Scenario.Builtin.TPCB)

    import_published_results(data=SHIPPED_CSV.read_bytes())

    study = Study.objects.get(title__contains="TPS by transactions per client")
    points = {
        (point.build.version, point.clients, point.conditions): (point.median, point.n)
        for point in StudyPoint.objects.filter(study=study).select_related("build")
    }
    assert points == {
        ("8.1.4", 10, "-t 10"): (452.462072, 10),
        ("8.1.4", 10, "-t 100"): (151.04483, 10),
        ("8.1.4", 10, "-t 500"): (112.203988, 10),
        ("8.1.4", 10, "-t 1000"): (104.065397, 10),
        ("8.3.1", 10, "-t 10"): (368.715249, 10),
        ("8.3.1", 10, "-t 100"): (328.353416, 10),
        ("8.3.1", 10, "-t 500"): (202.543517, 10),
        ("8.3.1", 10, "-t 1000"): (165.649611, 10),
    }
    ratios = {p.conditions: p.ratio for p in study_results(study) if p.build_version == "8.3.1"}
    assert ratios["-t 10"] == pytest.approx(368.715249 / 452.462072)
    assert ratios["-t 1000"] == pytest.approx(165.649611 / 104.065397)


def test_deleting_a_study_deletes_its_points(two_studies):
    first, second = two_studies
    first.delete()
    assert set(StudyPoint.objects.values_list("study_id", flat=True)) == {second.id}


def test_an_empty_store_has_no_trends():
    assert trends_data() == []
