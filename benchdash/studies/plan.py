"""A study's plan: every build x scenario x clients x repetition, in the random order the seeds use.

Pure functions over plain data: no models, no database.
"""

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from workers.spec import Reset


class Row(Protocol):
    pk: int


class ScenarioRow(Row, Protocol):
    reset: str


@dataclass(frozen=True)
class ScenarioRule:
    """What the plan needs to know of a scenario: its id and its data-reset rule."""

    scenario_id: int
    reset: str


@dataclass(frozen=True)
class PlannedTrial:
    position: int
    build_id: int
    scenario_id: int
    clients: int
    repetition: int
    reset_data: bool


def plan_study(
    *,
    builds: Iterable[Row],
    scenarios: Iterable[ScenarioRow],
    client_levels: Sequence[int],
    repetitions: int,
    seed: int,
) -> list[PlannedTrial]:
    """The plan of a study's builds and scenarios (rows, or anything with pk and reset), taken in id order
    so that the form's preview and the queued study get the same plan from the same choices."""
    return plan_trials(
        build_ids=sorted(build.pk for build in builds),
        scenarios=[ScenarioRule(scenario.pk, scenario.reset) for scenario in sorted(scenarios, key=_pk)],
        client_levels=client_levels,
        repetitions=repetitions,
        seed=seed,
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
) -> list[PlannedTrial]:
    """Expand a study into its trials, in run order.

    1. Each repetition is one round holding every build x scenario x clients once.
    2. The rounds are shuffled one after another by one random.Random(seed), as the seeds do it
       ("randomly ordered, repeated 3 times"): the same seed gives the same order.
    3. position is the index in the concatenated rounds.
    4. reset_data follows the scenario's rule: "trial" resets every trial; "round" the first trial of
       each build in each round; "once" the first trial of that build + scenario in the study.
    """
    rng = random.Random(seed)
    reset_by_scenario = {rule.scenario_id: rule.reset for rule in scenarios}
    points = [
        (build_id, rule.scenario_id, clients)
        for build_id in build_ids
        for rule in scenarios
        for clients in client_levels
    ]
    planned: list[PlannedTrial] = []
    seen_once: set[tuple[int, int]] = set()
    for repetition in range(1, repetitions + 1):
        round_points = list(points)
        rng.shuffle(round_points)
        seen_in_round: set[int] = set()
        for build_id, scenario_id, clients in round_points:
            reset = _needs_reset(reset_by_scenario[scenario_id], build_id, scenario_id, seen_in_round, seen_once)
            planned.append(PlannedTrial(len(planned), build_id, scenario_id, clients, repetition, reset))
    return planned


def _needs_reset(
    rule: str, build_id: int, scenario_id: int, seen_in_round: set[int], seen_once: set[tuple[int, int]]
) -> bool:
    first_in_round = build_id not in seen_in_round
    first_in_study = (build_id, scenario_id) not in seen_once
    seen_in_round.add(build_id)
    seen_once.add((build_id, scenario_id))
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
