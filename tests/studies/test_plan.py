"""The plan: every build x scenario x clients x repetition, in a seeded random order, with resets per scenario rule."""

from collections import Counter

from benchdash.studies.lifecycle.plan import ScenarioRule, estimate_seconds, plan_trials

REFERENCE = ScenarioRule(scenario_id=10, reset="once")
UPDATE = ScenarioRule(scenario_id=20, reset="trial")
WINDOWS = ScenarioRule(scenario_id=30, reset="round")
WINDOWS_UPDATE = ScenarioRule(scenario_id=40, reset="round", prewarm="round")
WINDOWS_REFERENCE = ScenarioRule(scenario_id=50, reset="once", prewarm="trial")


def make_plan(
    seed: int = 7,
    scenarios: tuple[ScenarioRule, ...] = (REFERENCE, UPDATE),
    repetitions: int = 3,
    order: str = "random",
    client_levels: tuple[int, ...] = (1, 16, 32),
):
    return plan_trials(
        build_ids=[1, 2],
        scenarios=scenarios,
        client_levels=list(client_levels),
        repetitions=repetitions,
        seed=seed,
        order=order,
    )


def order(plan):
    return [(trial.build_id, trial.scenario_id, trial.clients, trial.repetition) for trial in plan]


def test_it_plans_every_build_scenario_clients_and_repetition_once():
    plan = make_plan()
    assert len(plan) == 2 * 2 * 3 * 3
    assert Counter(order(plan)).most_common(1)[0][1] == 1
    assert {trial.clients for trial in plan} == {1, 16, 32}
    assert [trial.position for trial in plan] == list(range(36))


def test_it_gives_the_same_order_for_the_same_seed():
    assert order(make_plan(seed=42)) == order(make_plan(seed=42))


def test_it_gives_another_order_for_another_seed():
    assert order(make_plan(seed=1)) != order(make_plan(seed=2))


def test_it_runs_each_round_completely_before_the_next():
    plan = make_plan()
    assert [trial.repetition for trial in plan] == [1] * 12 + [2] * 12 + [3] * 12


def test_it_shuffles_each_round_differently():
    plan = make_plan(seed=3)
    rounds = [[(t.build_id, t.scenario_id, t.clients) for t in plan if t.repetition == r] for r in (1, 2, 3)]
    assert rounds[0] != rounds[1] or rounds[1] != rounds[2]
    assert sorted(rounds[0]) == sorted(rounds[1]) == sorted(rounds[2])


def test_it_resets_every_trial_of_a_trial_reset_scenario():
    plan = make_plan()
    assert all(trial.reset_data for trial in plan if trial.scenario_id == UPDATE.scenario_id)


def test_it_resets_a_once_scenario_only_on_the_first_trial_of_each_build():
    plan = make_plan()
    resets = [(t.build_id, t.position) for t in plan if t.scenario_id == REFERENCE.scenario_id and t.reset_data]
    firsts = {}
    for trial in plan:
        if trial.scenario_id == REFERENCE.scenario_id:
            firsts.setdefault(trial.build_id, trial.position)
    assert sorted(resets) == sorted(firsts.items())


def test_it_resets_a_round_scenario_on_the_first_trial_of_each_build_in_each_round():
    plan = make_plan(scenarios=(WINDOWS,))
    resets = [(trial.repetition, trial.build_id) for trial in plan if trial.reset_data]
    assert sorted(resets) == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
    for repetition in (1, 2, 3):
        in_round = [trial for trial in plan if trial.repetition == repetition]
        first_of_build = {}
        for trial in in_round:
            first_of_build.setdefault(trial.build_id, trial)
        assert all(trial.reset_data for trial in first_of_build.values())


def test_it_estimates_runs_overhead_and_resets():
    plan = make_plan(scenarios=(REFERENCE,), repetitions=1)
    assert len(plan) == 6 and sum(trial.reset_data for trial in plan) == 2
    assert estimate_seconds(plan, duration_s=60, scale=100) == 6 * (60 + 4.0) + 2 * (3.0 + 15.0)


def test_a_fixed_order_runs_every_round_the_same_with_client_levels_ascending():
    # seed 001 (Windows 更新系): 「上記順番で1回ずつ測定、これを3周する」
    plan = make_plan(scenarios=(WINDOWS_UPDATE,), order="ascending", client_levels=(32, 1, 16))
    rounds = [[(t.build_id, t.clients) for t in plan if t.repetition == r] for r in (1, 2, 3)]
    assert rounds[0] == rounds[1] == rounds[2] == [(1, 1), (1, 16), (1, 32), (2, 1), (2, 16), (2, 32)]
    assert [trial.position for trial in plan] == list(range(18))


def test_a_fixed_order_does_not_depend_on_the_seed():
    first = make_plan(seed=1, scenarios=(WINDOWS_UPDATE,), order="ascending")
    second = make_plan(seed=2, scenarios=(WINDOWS_UPDATE,), order="ascending")
    assert order(first) == order(second)


def test_a_round_prewarm_marks_the_first_trial_of_each_build_in_each_round_only():
    # 「各測定周の初めに、キャッシュへの読み込みを実施」
    plan = make_plan(scenarios=(WINDOWS_UPDATE,), order="ascending")
    assert [(t.repetition, t.build_id, t.clients) for t in plan if t.prewarm] == [
        (repetition, build_id, 1) for repetition in (1, 2, 3) for build_id in (1, 2)
    ]
    assert [t.prewarm for t in plan] == [t.reset_data for t in plan]  # with the round's rebuilt data


def test_a_trial_prewarm_marks_every_trial_and_none_marks_none():
    plan = make_plan(scenarios=(WINDOWS_REFERENCE, REFERENCE))
    assert all(t.prewarm for t in plan if t.scenario_id == WINDOWS_REFERENCE.scenario_id)
    assert not any(t.prewarm for t in plan if t.scenario_id == REFERENCE.scenario_id)


def test_a_round_reset_rebuilds_each_scenarios_own_data_in_each_round():
    other = ScenarioRule(scenario_id=31, reset="round")
    plan = make_plan(scenarios=(WINDOWS, other))
    resets = sorted((t.repetition, t.build_id, t.scenario_id) for t in plan if t.reset_data)
    assert resets == [(r, b, s) for r in (1, 2, 3) for b in (1, 2) for s in (30, 31)]


def test_a_warm_up_round_runs_every_cell_once_first_and_leaves_the_counted_rounds_as_they_were():
    without = make_plan()
    plan = plan_trials(
        build_ids=[1, 2],
        scenarios=(REFERENCE, UPDATE),
        client_levels=[1, 16, 32],
        repetitions=3,
        seed=7,
        warmup_runs=1,
    )

    warmups, counted = plan[:12], plan[12:]
    assert all(trial.warmup and trial.repetition == 0 for trial in warmups)
    assert {order_key[:3] for order_key in order(warmups)} == {key[:3] for key in order(without)}
    assert not any(trial.warmup for trial in counted)
    assert order(counted) == order(without)
    assert [trial.position for trial in plan] == list(range(48))
    # "once" data is made by the warm-up run, not again in round 1
    assert [trial.reset_data for trial in counted if trial.scenario_id == REFERENCE.scenario_id] == [False] * 18
