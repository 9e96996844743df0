"""What a design detects on a host, measured: a calibration's rounds resampled into studies (issue 42, point 3).

A calibration runs, in each round, the unthrottled server twice (A and A', an A/A) and once under each injected
slowdown (workers/cpu_quota.py). Evaluating it (docs/STATISTICS.md, "Calibration"):

1. Studies of n runs a side, for n in RUNS_A_SIDE where the rounds allow: every choice of n of the rounds where they
   are few (all combinations), else RESAMPLES choices drawn without replacement from a seeded generator.
2. Each such study gets the verdict a study gets (pooled.cell_interval, paired by round; the same threshold): A'
   against A, where "faster" or "slower" is a false alarm ("too few runs" is none); each slowed size against A,
   where "slower" is a call.
3. Each size's real effect: the geometric mean over all rounds of slowed / A (what the quota really did), stored beside
   the nominal size.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from benchdash.studies.results.pooled import HostSpread, Runs, cell_interval
from benchdash.studies.results.uncertainty import DEFAULT_THRESHOLD, Verdict, verdict

RUNS_A_SIDE = (3, 5, 8, 10)
ALARMS = (Verdict.FASTER, Verdict.SLOWER)
Side = Callable[["CalibrationRound"], float]
RESAMPLES = 200


@dataclass(frozen=True)
class CalibrationRound:
    """One round: the unthrottled side's TPS twice, and each slowed size's TPS (size in % -> TPS)."""

    first: float
    second: float
    slowed: Mapping[int, float]


@dataclass(frozen=True)
class Detection:
    """What studies of `runs` runs a side did: how many there were, A/A false alarms, and calls per size."""

    runs: int
    studies: int
    false_alarms: int
    called: Mapping[int, int]

    def as_dict(self) -> dict[str, object]:
        called = {str(size): count for size, count in self.called.items()}
        return {"runs": self.runs, "studies": self.studies, "false_alarms": self.false_alarms, "called": called}


def evaluate(
    rounds: Sequence[CalibrationRound],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    spread: HostSpread | None = None,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> list[Detection]:
    """Step 1 and 2 for every n of RUNS_A_SIDE that the rounds reach."""
    sizes = sorted(set.intersection(*(set(one.slowed) for one in rounds))) if rounds else []
    detections = []
    for runs in RUNS_A_SIDE:
        if runs > len(rounds):
            break
        chosen = list(_choices(len(rounds), runs, seed, resamples))
        studies = [[rounds[index] for index in indices] for indices in chosen]
        false_alarms = sum(_verdict(study, _second, threshold, spread) in ALARMS for study in studies)
        called = {size: sum(_called(study, size, threshold, spread) for study in studies) for size in sizes}
        detections.append(Detection(runs, len(studies), false_alarms, called))
    return detections


def real_effects(rounds: Sequence[CalibrationRound]) -> dict[int, float]:
    """Step 3: each size's slowed / A, as a fraction (0.048: 4.8% slower), over all rounds."""
    sizes = set.intersection(*(set(one.slowed) for one in rounds)) if rounds else set()
    return {
        size: round(1 - math.exp(statistics.fmean(math.log(one.slowed[size] / one.first) for one in rounds)), 4)
        for size in sorted(sizes)
    }


def _choices(count: int, runs: int, seed: int, resamples: int) -> Iterator[tuple[int, ...]]:
    if math.comb(count, runs) <= resamples:
        yield from itertools.combinations(range(count), runs)
        return
    generator = random.Random(seed * 1_000 + runs)
    for _ in range(resamples):
        yield tuple(sorted(generator.sample(range(count), runs)))


def _second(one: CalibrationRound) -> float:
    return one.second


def _called(study: list[CalibrationRound], size: int, threshold: float, spread: HostSpread | None) -> bool:
    return _verdict(study, lambda one: one.slowed[size], threshold, spread) == Verdict.SLOWER


def _verdict(study: list[CalibrationRound], pick: Side, threshold: float, spread: HostSpread | None) -> Verdict:
    """The verdict of the side `pick` takes from each round against the round's first unthrottled run, paired."""
    rounds = list(range(len(study)))
    runs = Runs([pick(one) for one in study], rounds)
    baseline = Runs([one.first for one in study], rounds)
    return verdict(cell_interval(runs, baseline, spread), threshold)
