"""The first-round effect: whether a study's first counted round ran faster (or slower) than the rest.

On a 16-core cloud machine the first round ran 13-35% faster than the rest (a host that warms up, or that spends
a burst allowance first). A study whose cells all carry that round reads it as spread, and a point's median moves
with it. Measured per study (docs/STATISTICS.md, "The first-round effect"):

1. Per cell (a point with the round of each run): its first counted round's run against the median of its other
   runs, as a ratio minus one (+0.18: the first round ran 18% faster). A cell needs two other runs.
2. The study's effect is the median of its cells' effects.
3. Beyond noise: where the host does not warm up, the first round's run is one more run of the cell. Per cell,
   log TPS about normal (as the pooled t interval assumes), the first run's distance from the mean log TPS of the
   others, over their standard deviation s times sqrt(1 + 1/m) (m other runs), is t with m - 1 degrees of freedom
   (the t of a prediction); its chance is turned into a z score. The cells' z scores are added (Stouffer: their sum
   over sqrt(cells)), so that cells that lean the same way add up and cells that disagree cancel; beyond noise where
   the two-sided chance of the sum is below 1 - CONFIDENCE. A sign or rank test holds whatever the noise, but with
   2 cells of 5 runs no arrangement of ranks reaches 5%: it could never warn a small study.

scipy is imported inside the function that uses it (its import is heavy, pooled.py says why).

Pure functions over plain data: no database.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdash.studies.results.uncertainty import CONFIDENCE

if TYPE_CHECKING:  # the models' module: the bench scripts read records without Django
    from benchdash.studies.results.compare import Point

MIN_OTHER_RUNS = 2
# A z score beyond this is as good as certain; kept finite where the others do not spread at all.
MAX_Z = 8.0


@dataclass(frozen=True)
class CellFirstRound:
    """One cell's first counted round: its effect (ratio to the median of the other runs, minus one), and how far
    its run lies from the others as a z score (step 3: positive, faster)."""

    effect: float
    z: float


@dataclass(frozen=True)
class FirstRound:
    """A study's first-round effect: the median of its cells' effects, and the two-sided chance of z scores that
    add up as far from 0 where the host does not warm up."""

    effect: float
    p_value: float
    cells: int

    @property
    def beyond_noise(self) -> bool:
        return self.p_value < 1 - CONFIDENCE

    @property
    def percent(self) -> int:
        """The effect as the warning says it: 0.183 -> 18 (faster), -0.07 -> 7 (slower)."""
        return round(abs(self.effect) * 100)

    @property
    def faster(self) -> bool:
        return self.effect > 0


def cell_first_round(runs: Sequence[float], rounds: Sequence[int | None]) -> CellFirstRound | None:
    """The first counted round's run of one cell against its other runs; None where the rounds are unknown or
    fewer than two other runs stand beside it."""
    known = [(round_, tps) for tps, round_ in zip(runs, rounds, strict=False) if round_ is not None]
    if len(known) != len(runs) or len(known) < MIN_OTHER_RUNS + 1 or min(runs) <= 0:
        return None
    first_round = min(round_ for round_, _tps in known)
    first = next(tps for round_, tps in known if round_ == first_round)
    others = [tps for round_, tps in known if round_ != first_round]
    if len(others) < MIN_OTHER_RUNS:
        return None
    return CellFirstRound(first / statistics.median(others) - 1, prediction_z(first, others))


def prediction_z(first: float, others: Sequence[float]) -> float:
    """How far the first run's log TPS lies from the others', as the z score of its t of a prediction (step 3)."""
    from scipy import stats

    logs = [math.log(tps) for tps in others]
    spread = statistics.stdev(logs) * math.sqrt(1 + 1 / len(logs))
    distance = math.log(first) - statistics.fmean(logs)
    if spread == 0:
        return 0.0 if distance == 0 else math.copysign(MAX_Z, distance)
    below = float(stats.t.cdf(distance / spread, len(logs) - 1))
    return max(-MAX_Z, min(MAX_Z, float(stats.norm.ppf(below))))


def point_first_round_effect(point: Point) -> float | None:
    """One point's first-round effect (step 1), or None where it has too few runs with their rounds."""
    cell = cell_first_round(point.runs, point.rounds)
    return None if cell is None else cell.effect


def study_first_round(points: Sequence[Point]) -> FirstRound | None:
    """The study's first-round effect over its points' runs (read with their runs); None where no cell has
    enough runs with their rounds."""
    cells = [cell for point in points if (cell := cell_first_round(point.runs, point.rounds)) is not None]
    if not cells:
        return None
    effect = statistics.median(cell.effect for cell in cells)
    return FirstRound(effect, stouffer_p_value(cells), len(cells))


def stouffer_p_value(cells: Sequence[CellFirstRound]) -> float:
    """The two-sided chance of the cells' z scores adding up as far from 0 (their sum over sqrt(cells))."""
    from scipy import stats

    combined = sum(cell.z for cell in cells) / math.sqrt(len(cells))
    return float(2 * stats.norm.sf(abs(combined)))
