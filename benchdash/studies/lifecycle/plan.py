"""A study's plan: every build x scenario x clients x repetition, in the order its procedure says: shuffled
per round as the fixed-point observation does, or fixed, client levels ascending, as the 2020 Windows study did.

Pure functions over plain data: no models, no database.
"""

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from workers.spec import Prewarm, Reset, RunOrder


class Row(Protocol):
    pk: int


class ScenarioRow(Row, Protocol):
    reset: str
    prewarm: str


@dataclass(frozen=True)
class ScenarioRule:
    """What the plan needs to know of a scenario: its id, its data-reset rule and its prewarm rule."""

    scenario_id: int
    reset: str
    prewarm: str = Prewarm.NONE


@dataclass(frozen=True)
class PlannedTrial:
    position: int
    build_id: int
    scenario_id: int
    clients: int
    repetition: int
    reset_data: bool
    prewarm: bool = False


def plan_study(
    *,
    builds: Iterable[Row],
    scenarios: Iterable[ScenarioRow],
    client_levels: Sequence[int],
    repetitions: int,
    seed: int,
    order: str = RunOrder.RANDOM,
) -> list[PlannedTrial]:
    """The plan of a study's builds and scenarios (rows, or anything with pk, reset and prewarm), taken in id
    order so that the form's preview and the queued study get the same plan from the same choices."""
    return plan_trials(
        build_ids=sorted(build.pk for build in builds),
        scenarios=[
            ScenarioRule(scenario.pk, scenario.reset, scenario.prewarm) for scenario in sorted(scenarios, key=_pk)
        ],
        client_levels=client_levels,
        repetitions=repetitions,
        seed=seed,
        order=order,
    )


def plan_design(design: Mapping[str, Any], repetitions: int | None = None) -> list[PlannedTrial]:
    """The plan of a study design as StudyForm.cleaned_data holds it: what the form previews and study_create queues
    (with other repetitions: the cap's worst case)."""
    return plan_study(
        builds=design["builds"],
        scenarios=design["scenarios"],
        client_levels=design["client_levels"],
        repetitions=repetitions or design["repetitions"],
        seed=design["seed"],
        order=design.get("run_order") or RunOrder.RANDOM,
    )


def _pk(row: Row) -> int:
    return row.pk


def plan_trials(
    *,
    build_ids: Sequence[int],
    scenarios: Sequence[ScenarioRule],
    client_levels: Sequence[int],
    repetitions: int,
    seed: int,
    order: str = RunOrder.RANDOM,
) -> list[PlannedTrial]:
    """Expand a study into its trials, in run order.

    1. Each repetition is one round holding every build x scenario x clients once.
    2. Order "random": the rounds are shuffled one after another by one random.Random(seed), as the seeds
       do it ("randomly ordered, repeated 3 times"): the same seed gives the same order. Order "ascending":
       every round in the same fixed order, build by build, scenario by scenario, client levels ascending
       ("in the above order, once each, three rounds").
    3. position is the index in the concatenated rounds.
    4. reset_data follows the scenario's rule: "trial" resets every trial; "round" the first trial of each
       build + scenario (its own data) in each round; "once" the first trial of that build + scenario.
    5. prewarm follows the scenario's prewarm rule: "trial" every trial; "round" the first trial of each
       build + scenario in each round; "none" never.
    """
    rng = random.Random(seed)
    rules = {rule.scenario_id: rule for rule in scenarios}
    points = [
        (build_id, rule.scenario_id, clients)
        for build_id in build_ids
        for rule in scenarios
        for clients in (sorted(client_levels) if order == RunOrder.ASCENDING else client_levels)
    ]
    planned: list[PlannedTrial] = []
    seen_once: set[tuple[int, int]] = set()
    for repetition in range(1, repetitions + 1):
        round_points = list(points)
        if order != RunOrder.ASCENDING:
            rng.shuffle(round_points)
        planned += _round(round_points, rules, repetition, len(planned), seen_once)
    return planned


def plan_round(
    *,
    cells: Sequence[tuple[int, int, int]],
    scenarios: Sequence[ScenarioRule],
    repetition: int,
    seed: int,
    first_position: int,
    order: str = RunOrder.RANDOM,
) -> list[PlannedTrial]:
    """One more round of some cells (build, scenario, clients), after the planned rounds: adaptive repetitions.

    Shuffled by random.Random of the seed and the round's number, so that a study's extra rounds are as
    random and as repeatable as its planned ones ("ascending": build, scenario, clients in order). The data
    and prewarm rules apply as in any later round: "once" data exists already."""
    ordered = sorted(cells)
    if order != RunOrder.ASCENDING:
        random.Random(f"{seed}:{repetition}").shuffle(ordered)
    rules = {rule.scenario_id: rule for rule in scenarios}
    already = {(build_id, scenario_id) for build_id, scenario_id, _clients in ordered}
    return _round(ordered, rules, repetition, first_position, already)


def _round(
    round_points: Sequence[tuple[int, int, int]],
    rules: dict[int, ScenarioRule],
    repetition: int,
    first_position: int,
    seen_once: set[tuple[int, int]],
) -> list[PlannedTrial]:
    """The trials of one round in the given order; seen_once (the build + scenario data made so far) grows."""
    planned: list[PlannedTrial] = []
    seen_in_round: set[tuple[int, int]] = set()
    for build_id, scenario_id, clients in round_points:
        data = (build_id, scenario_id)
        first_in_round, first_in_study = data not in seen_in_round, data not in seen_once
        seen_in_round.add(data)
        seen_once.add(data)
        rule = rules[scenario_id]
        reset = _by_rule(rule.reset, first_in_round, first_in_study)
        prewarm = _by_rule(rule.prewarm, first_in_round, first_in_study=False)
        position = first_position + len(planned)
        planned.append(PlannedTrial(position, build_id, scenario_id, clients, repetition, reset, prewarm))
    return planned


def _by_rule(rule: str, first_in_round: bool, first_in_study: bool) -> bool:
    """Whether a trial does what a per-trial, per-round or once-per-study rule says (none: never)."""
    if rule == Reset.TRIAL:
        return True
    if rule == Reset.ROUND:
        return first_in_round
    return first_in_study


def estimate_seconds(planned: Sequence[PlannedTrial], *, duration_s: int, scale: int) -> float:
    """Rough wall time: every trial's pgbench run and the engine's overhead, plus every data reset
    (initdb + pgbench -i, which grows with the scale: about 0.15 s per scale unit on a small server)."""
    overhead_s = 4.0
    reset_s = 3.0 + 0.15 * scale
    resets = sum(1 for trial in planned if trial.reset_data)
    return len(planned) * (duration_s + overhead_s) + resets * reset_s
