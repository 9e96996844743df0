"""Adaptive repetitions: which cells get another round, how it is planned, and a study that grows until settled."""

import pytest

from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.adaptive import cells_to_repeat, study_extend
from benchdash.studies.lifecycle.plan import ScenarioRule, plan_round
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.store import points_refresh
from benchdash.studies.results.uncertainty import Verdict
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, measured_results, succeeded_runs

OLD, NEW = "15.0", "16.0"
SPREAD = [95.0, 100.0, 105.0, 98.0, 102.0]  # CV 3.9%: four runs of it against four cross +-2%
pytestmark = pytest.mark.django_db


def _build_id(version):
    return BuildFactory(version=version).pk


def _cell(version, clients):
    return (_build_id(version), ScenarioFactory(slug="s").pk, clients)


def _points(runs_by_cell):
    scenario = ScenarioFactory(slug="s")
    figures = {
        (BuildFactory(version=version), scenario, clients): runs for (version, clients), runs in runs_by_cell.items()
    }
    return measured_results(figures, BuildFactory(version=OLD))


def _trials(runs_by_cell):
    return {_cell(version, clients): len(runs) for (version, clients), runs in runs_by_cell.items()}


def test_a_cell_with_too_few_runs_and_its_baseline_get_another_round():
    runs = {(OLD, 1): [100.0, 101.0, 99.0], (NEW, 1): [150.0, 151.0, 149.0]}
    assert cells_to_repeat(_points(runs), _build_id(OLD), threshold=0.02, trials=_trials(runs), cap=10) == {
        _cell(OLD, 1),
        _cell(NEW, 1),
    }


def test_an_interval_crossing_the_threshold_gets_another_round():
    runs = {(OLD, 1): SPREAD[:4], (NEW, 1): [value * 1.02 for value in SPREAD[:4]]}
    assert len(cells_to_repeat(_points(runs), _build_id(OLD), threshold=0.02, trials=_trials(runs), cap=10)) == 2


def test_a_settled_interval_gets_no_more_runs():
    # Five runs a side, interval 1.021 .. 1.085: wholly above +2%, faster; more runs would not change it.
    runs = {(OLD, 1): [95.0, 96.0, 94.0, 97.0, 93.0], (NEW, 1): [100.0, 102.0, 98.0, 101.0, 99.0]}
    assert cells_to_repeat(_points(runs), _build_id(OLD), threshold=0.02, trials=_trials(runs), cap=10) == set()


def test_a_cell_at_the_cap_gets_no_more_runs_and_the_other_still_does():
    runs = {(OLD, 1): [100.0, 101.0, 99.0, 100.5], (NEW, 1): [100.0, 101.0, 99.0]}
    trials = _trials(runs)
    assert cells_to_repeat(_points(runs), _build_id(OLD), threshold=0.02, trials=trials, cap=4) == {_cell(NEW, 1)}
    assert cells_to_repeat(_points(runs), _build_id(OLD), threshold=0.02, trials=trials, cap=3) == set()


def test_a_cell_without_a_baseline_figure_is_left_alone():
    runs = {(NEW, 1): [100.0, 101.0, 99.0]}
    assert cells_to_repeat(_points(runs), _build_id(OLD), threshold=0.02, trials=_trials(runs), cap=10) == set()


def test_an_extra_round_is_shuffled_by_the_seed_and_the_round_and_follows_the_data_rules():
    cells = [(b, s, c) for b in (1, 2) for s in (10, 11) for c in (1, 2, 4)]
    rules = [ScenarioRule(10, "once"), ScenarioRule(11, "round", prewarm="trial")]
    planned = plan_round(cells=cells, scenarios=rules, repetition=4, seed=9, first_position=24)
    again = plan_round(cells=list(reversed(cells)), scenarios=rules, repetition=4, seed=9, first_position=24)
    fifth = plan_round(cells=cells, scenarios=rules, repetition=5, seed=9, first_position=36)
    assert planned == again
    assert [t.position for t in planned] == list(range(24, 36))
    assert {t.repetition for t in planned} == {4}
    assert [(t.build_id, t.scenario_id, t.clients) for t in planned] != sorted(cells)
    assert [(t.build_id, t.scenario_id, t.clients) for t in fifth] != [
        (t.build_id, t.scenario_id, t.clients) for t in planned
    ]
    assert not any(t.reset_data for t in planned if t.scenario_id == 10)  # "once": the data is there already
    assert sum(t.reset_data for t in planned if t.scenario_id == 11) == 2  # "round": first of each build
    assert all(t.prewarm for t in planned if t.scenario_id == 11)


@pytest.fixture
def running_study(db):
    old, new = BuildFactory(version="15.19"), BuildFactory(version="15.20")
    scenario = ScenarioFactory(slug="ref", reset="once")
    study = StudyFactory(
        builds=[old, new],
        baseline=old,
        scenarios=[scenario],
        client_levels=[1, 2],
        repetitions=3,
        max_repetitions=5,
        status=Study.Status.RUNNING,
        seed=7,
    )
    runs = {
        (old, 1): [100.0, 101.0, 99.0],
        (new, 1): [100.5, 99.5, 100.0],
        (old, 2): [200.0] * 3,
        (new, 2): [300.0] * 3,
    }
    succeeded_runs(study, scenario, runs)
    return study


@pytest.mark.django_db
def test_a_study_with_no_trial_left_gets_a_round_of_its_unsettled_cells_at_the_end(running_study):
    next_trial = services.study_continue(study_id=running_study.pk)
    added = running_study.trials.filter(status=Trial.Status.PENDING).order_by("position")
    last = running_study.trials.filter(repetition=3).order_by("position").last().position
    assert [(t.repetition, t.position) for t in added] == [(4, last + 1), (4, last + 2), (4, last + 3), (4, last + 4)]
    assert next_trial == added[0]
    running_study.refresh_from_db()
    assert running_study.status == Study.Status.RUNNING


@pytest.mark.django_db
def test_a_settled_cell_stops_the_others_run_to_the_cap_and_the_study_settles(running_study):
    old = running_study.baseline
    added = []
    for repetition in (4, 5):
        added.append(study_extend(study_id=running_study.pk))
        this_round = running_study.trials.filter(repetition=repetition)
        this_round.update(status=Trial.Status.SUCCEEDED, tps=105.0)
        this_round.filter(clients=1, build=old).update(tps=95.0)
        this_round.filter(clients=2).exclude(build=old).update(tps=300.0)
        this_round.filter(clients=2, build=old).update(tps=200.0)
        points_refresh(study_id=running_study.pk)  # as trial_finish does for each
    # Round 4: every cell (3 runs are too few); round 5: every cell again, since this study may look 3 times and
    # so draws its look after 4 runs at 97.56% (the group-sequential boundary), which 4 runs a side cannot reach
    # (97.1% at most). At 5 a side the 2-client ratio,
    # 300 against 200 in every run, is settled (faster); the 1-client cells still cross +-2% but are at the cap.
    assert added == [4, 4]
    assert study_extend(study_id=running_study.pk) == 0
    assert {(p.clients, p.verdict) for p in study_results(running_study) if p.verdict} == {
        (1, Verdict.CANT_TELL),
        (2, Verdict.FASTER),
    }
    assert services.study_continue(study_id=running_study.pk) is None
    running_study.refresh_from_db()
    assert running_study.status == Study.Status.DONE
    assert running_study.trials.count() == 12 + 4 + 4
    assert running_study.confidence_percent == "96.08"  # the last look's; Bonferroni drew every look at 98.33
    assert Study(repetitions=3, max_repetitions=None).confidence_percent == "95"


@pytest.mark.django_db
def test_a_study_without_adaptive_repetitions_never_grows(running_study):
    Study.objects.filter(pk=running_study.pk).update(max_repetitions=None)
    assert study_extend(study_id=running_study.pk) == 0
    assert running_study.trials.count() == 12
