"""A study's plan: every variant (a build, or a build and more) x scenario x clients x repetition, in the order its
procedure says: shuffled per round as the fixed-point observation does, or fixed, client levels ascending, as the
2020 Windows study did.

Pure functions over plain data: no models, no database.
"""

import dataclasses
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from workers.spec import Prewarm, Reset, RunOrder

if TYPE_CHECKING:
    from benchdash.studies.design import StudyDesign


class Row(Protocol):
    pk: int


@dataclass(frozen=True)
class ScenarioRule:
    """What the plan needs to know of a scenario: its id, its data-reset rule and its prewarm rule."""

    scenario_id: int
    reset: str
    prewarm: str = Prewarm.NONE


@dataclass(frozen=True, order=True)
class VariantRef:
    """What the plan needs to know of a variant: its build, and its id (0: the build alone, before variants)."""

    build_id: int
    variant_id: int = 0


@dataclass(frozen=True)
class PlannedTrial:
    position: int
    build_id: int
    scenario_id: int
    clients: int
    repetition: int
    reset_data: bool
    prewarm: bool = False
    variant_id: int | None = None
    warmup: bool = False
    duet_half: int | None = None


def plan_design(
    design: "StudyDesign", repetitions: int | None = None, variants: Sequence[VariantRef] = ()
) -> list[PlannedTrial]:
    """The plan of a study design: what the form previews and study_create queues (with other repetitions: the
    cap's worst case). Without saved variants (the preview) each of the design's variants is numbered by its
    place, from 1, and its trials carry that number."""
    designed = design.variants()
    return plan_trials(
        build_ids=sorted(build.pk for build in design.builds),
        variants=variants or [VariantRef(variant.build.pk, number) for number, variant in enumerate(designed, 1)],
        scenarios=[ScenarioRule(row.pk, row.reset, row.prewarm) for row in sorted(design.scenarios, key=_pk)],
        client_levels=design.client_levels,
        repetitions=repetitions or design.repetitions,
        seed=design.seed,
        order=design.run_order,
        warmup_runs=design.warmup_runs,
        duet=design.is_duet,
    )


def _pk(row: Row) -> int:
    return row.pk


def plan_trials(
    *,
    build_ids: Sequence[int] = (),
    variants: Sequence[VariantRef] = (),
    scenarios: Sequence[ScenarioRule],
    client_levels: Sequence[int],
    repetitions: int,
    seed: int,
    order: str = RunOrder.RANDOM,
    warmup_runs: int = 0,
    duet: bool = False,
) -> list[PlannedTrial]:
    """Expand a study into its trials, in run order.

    0. The variants, each a build and an id, are in the given order; without them, each build is one.
    1. Each repetition is one round holding every variant x scenario x clients once.
    2. Order "random": the rounds are shuffled one after another by one random.Random(seed), as the seeds
       do it ("randomly ordered, repeated 3 times"): the same seed gives the same order. Order "ascending":
       every round in the same fixed order, build by build, scenario by scenario, client levels ascending
       ("in the above order, once each, three rounds").
    3. position is the index in the concatenated rounds.
    4. reset_data follows the scenario's rule: "trial" resets every trial; "round" the first trial of each
       variant + scenario (its own data) in each round; "once" the first trial of that variant + scenario.
    5. prewarm follows the scenario's prewarm rule: "trial" every trial; "round" the first trial of each
       variant + scenario in each round; "none" never.
    6. warmup_runs 1: round 0 comes first, every cell once, its trials marked warm-up (run, never counted);
       shuffled by its own random.Random, so that the counted rounds are those of the same seed without it.
       The data and prewarm rules apply to it as to any round.
    7. duet (two variants, both at once): each round's two trials of a cell come together, the first variant's
       first (the round's leader), in the order the round first reaches the cell; then each gets its half of the
       DB host's CPUs (duet_halves).
    """
    rng = random.Random(seed)
    rules = {rule.scenario_id: rule for rule in scenarios}
    points = [
        (variant, rule.scenario_id, clients)
        for variant in variants or [VariantRef(build_id) for build_id in build_ids]
        for rule in scenarios
        for clients in (sorted(client_levels) if order == RunOrder.ASCENDING else client_levels)
    ]
    planned: list[PlannedTrial] = []
    seen_once: set[tuple[VariantRef, int]] = set()
    if warmup_runs:
        warmup_points = list(points)
        if order != RunOrder.ASCENDING:
            random.Random(f"{seed}:warm-up").shuffle(warmup_points)
        warmups = _round(_paired(warmup_points, duet), rules, 0, 0, seen_once)
        planned += [dataclasses.replace(trial, warmup=True) for trial in warmups]
    for repetition in range(1, repetitions + 1):
        round_points = list(points)
        if order != RunOrder.ASCENDING:
            rng.shuffle(round_points)
        planned += _round(_paired(round_points, duet), rules, repetition, len(planned), seen_once)
    return duet_halves(planned, seed) if duet else planned


def _paired(round_points: list[tuple[VariantRef, int, int]], duet: bool) -> list[tuple[VariantRef, int, int]]:
    """A duet round's points with each cell's two sides together, the earlier variant first, cells in the order the
    round first reaches them (its shuffled order); any other round's as they are."""
    if not duet:
        return round_points
    cells: dict[tuple[int, int], list[tuple[VariantRef, int, int]]] = {}
    for point in round_points:
        cells.setdefault((point[1], point[2]), []).append(point)
    return [point for pair in cells.values() for point in sorted(pair, key=lambda point: point[0].variant_id)]


def duet_halves(planned: Sequence[PlannedTrial], seed: int) -> list[PlannedTrial]:
    """Each duet pair's halves (randomized multiple interleaved trials): a cell's leader starts on a half drawn by
    random.Random(f"{seed}:duet") and takes the other half each next round, its partner always the other one, so the
    sides swap halves every round and neither half favours a side."""
    rng = random.Random(f"{seed}:duet")
    starts: dict[tuple[int, int], int] = {}
    halved: list[PlannedTrial] = []
    for leader, partner in zip(planned[::2], planned[1::2], strict=True):
        start = starts.setdefault((leader.scenario_id, leader.clients), rng.randrange(2))
        half = (start + leader.repetition) % 2
        halved += [dataclasses.replace(leader, duet_half=half), dataclasses.replace(partner, duet_half=1 - half)]
    return halved


def plan_round(
    *,
    cells: Sequence[tuple[int, int, int]],
    scenarios: Sequence[ScenarioRule],
    repetition: int,
    seed: int,
    first_position: int,
    order: str = RunOrder.RANDOM,
    variants: Mapping[int, Sequence[VariantRef]] | None = None,
) -> list[PlannedTrial]:
    """One more round of some cells (build, scenario, clients), after the planned rounds: adaptive repetitions.

    Each cell runs for every variant of its build that `variants` (build id -> variants) names, or for the build
    alone. Shuffled by random.Random of the seed and the round's number, so that a study's extra rounds are as
    random and as repeatable as its planned ones ("ascending": build, scenario, clients in order). The data
    and prewarm rules apply as in any later round: "once" data exists already."""
    of_build = variants or {}
    ordered = sorted(
        (variant, scenario_id, clients)
        for build_id, scenario_id, clients in cells
        for variant in of_build.get(build_id) or [VariantRef(build_id)]
    )
    if order != RunOrder.ASCENDING:
        random.Random(f"{seed}:{repetition}").shuffle(ordered)
    rules = {rule.scenario_id: rule for rule in scenarios}
    already = {(variant, scenario_id) for variant, scenario_id, _clients in ordered}
    return _round(ordered, rules, repetition, first_position, already)


def _round(
    round_points: Sequence[tuple[VariantRef, int, int]],
    rules: dict[int, ScenarioRule],
    repetition: int,
    first_position: int,
    seen_once: set[tuple[VariantRef, int]],
) -> list[PlannedTrial]:
    """The trials of one round in the given order; seen_once (the variant + scenario data made so far) grows."""
    planned: list[PlannedTrial] = []
    seen_in_round: set[tuple[VariantRef, int]] = set()
    for variant, scenario_id, clients in round_points:
        data = (variant, scenario_id)
        first_in_round, first_in_study = data not in seen_in_round, data not in seen_once
        seen_in_round.add(data)
        seen_once.add(data)
        rule = rules[scenario_id]
        reset = _by_rule(rule.reset, first_in_round, first_in_study)
        prewarm = _by_rule(rule.prewarm, first_in_round, first_in_study=False)
        position = first_position + len(planned)
        planned.append(
            PlannedTrial(
                position,
                variant.build_id,
                scenario_id,
                clients,
                repetition,
                reset,
                prewarm,
                variant.variant_id or None,
            )
        )
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
