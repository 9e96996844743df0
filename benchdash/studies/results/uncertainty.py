"""How sure a difference is: the run-to-run spread of a cell, the interval of a ratio, and the verdict.

Pure functions over TPS values, no database and no randomness: the same runs always give the same figures. numpy is
imported inside the functions that use it, for the reason results/sequential.py gives.
The method (docs/STATISTICS.md):

1. Spread of a cell: the coefficient of variation of its runs' TPS (sample standard deviation / mean).
2. Interval of a ratio (build / baseline): the distribution-free interval that goes with the Mann-Whitney rank
   test (Hodges and Lehmann), on log TPS. Every pairwise difference log(build run) - log(baseline run) is
   formed; the interval runs from the k-th smallest to the k-th largest of them, k taken from the exact
   null distribution of the Mann-Whitney count (a normal approximation above EXACT_PAIRS pairs), so that it
   holds the true ratio with at least the stated confidence whatever the shape of the noise, provided the
   runs are exchangeable (the random run order is there for that). Back on the ratio scale: exp().
3. With too few runs no such interval exists at the chosen confidence (3 runs against 3 cannot reach 95%:
   the most extreme arrangement already has probability 2/20): "too few runs to tell".
4. Verdict at a threshold t (say 2%): faster when the whole interval lies above 1 + t, slower when it lies
   below 1 - t, can't tell otherwise. The interval is settled (no more runs would change the verdict's
   footing) when it lies wholly beyond one of the two edges or wholly between them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

CONFIDENCE = 0.95
DEFAULT_THRESHOLD = 0.02
# Up to this many pairs the Mann-Whitney counts are exact; above, the normal approximation is as good.
EXACT_PAIRS = 10_000
# The k-th pairwise difference is picked from a sorted list once the candidates are this few.
PICK_AMONG = 4096


class Method(StrEnum):
    """Which interval gave a verdict: the rank interval (this module), or a t interval (pooled.py): pooled with
    the host's history, on the runs paired by round or, where the runs carry no round, unpaired; or, on a host
    with no history, on the runs paired by round alone. A study of means (mean.py): a t interval of the ratio of
    the means, on the runs, or on the rounds both sides ran."""

    RANK = "rank"
    POOLED_T = "pooled_t"
    PAIRED_T = "paired_t"
    PAIRED_OWN = "paired_own"
    MEAN_T = "mean_t"
    MEAN_PAIRED_T = "mean_paired_t"


class Verdict(StrEnum):
    FASTER = "faster"
    SLOWER = "slower"
    CANT_TELL = "cant_tell"
    TOO_FEW_RUNS = "too_few_runs"


@dataclass(frozen=True)
class RatioInterval:
    """The interval of build / baseline TPS, the confidence it actually holds (at least the one asked), the
    method that drew it and, for a t interval, its degrees of freedom."""

    low: float
    high: float
    confidence: float
    method: Method = Method.RANK
    degrees: int | None = None

    def within(self, threshold: float) -> bool:
        """Wholly inside 1 +- threshold: no difference as large as the threshold."""
        return 1 - threshold <= self.low and self.high <= 1 + threshold


def ratio_interval(
    runs: Sequence[float], baseline_runs: Sequence[float], confidence: float = CONFIDENCE
) -> RatioInterval | None:
    """The interval of the ratio runs / baseline_runs (see the module's step 2); None when the runs are too
    few for any interval at this confidence, or a TPS is not positive."""
    if not runs or not baseline_runs or min(runs) <= 0 or min(baseline_runs) <= 0:
        return None
    rank = interval_rank(len(runs), len(baseline_runs), confidence)
    if rank is None:
        return None
    k, achieved = rank
    logs, baseline_logs = sorted(map(math.log, runs)), sorted(map(math.log, baseline_runs))
    pairs = len(logs) * len(baseline_logs)
    low = kth_difference(logs, baseline_logs, k)
    high = kth_difference(logs, baseline_logs, pairs + 1 - k)
    return RatioInterval(math.exp(low), math.exp(high), achieved)


def verdict(interval: RatioInterval | None, threshold: float = DEFAULT_THRESHOLD) -> Verdict:
    if interval is None:
        return Verdict.TOO_FEW_RUNS
    if interval.low > 1 + threshold:
        return Verdict.FASTER
    if interval.high < 1 - threshold:
        return Verdict.SLOWER
    return Verdict.CANT_TELL


def is_settled(interval: RatioInterval | None, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether the interval crosses neither 1 - threshold nor 1 + threshold (the adaptive rule's test)."""
    if interval is None:
        return False
    return verdict(interval, threshold) != Verdict.CANT_TELL or interval.within(threshold)


@lru_cache(maxsize=1024)
def interval_rank(n: int, m: int, confidence: float = CONFIDENCE) -> tuple[int, float] | None:
    """k, the rank of the interval's ends among the n * m pairwise differences, and the confidence it holds:
    the largest k with P(U <= k - 1) <= (1 - confidence) / 2 for the Mann-Whitney count U of n against m
    exchangeable runs. None when even k = 1 is too likely (too few runs)."""
    tail = (1 - confidence) / 2
    if n * m > EXACT_PAIRS:
        return _normal_rank(n, m, confidence)
    counts = _mann_whitney_counts(min(n, m), max(n, m), n * m // 2 + 1)
    total = math.comb(n + m, n)
    limit = Fraction(tail).limit_denominator(10**9) * total
    below, k = 0, 0
    for count in counts:
        if below + count > limit:
            break
        below += count
        k += 1
    if k == 0:
        return None
    return k, 1 - 2 * below / total


def _normal_rank(n: int, m: int, confidence: float) -> tuple[int, float] | None:
    pairs = n * m
    spread = math.sqrt(pairs * (n + m + 1) / 12)
    z = statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    k = math.floor(pairs / 2 - z * spread + 0.5)
    if k < 1:
        return None
    achieved = 1 - 2 * statistics.NormalDist(pairs / 2, spread).cdf(k - 0.5)
    return k, achieved


def _mann_whitney_counts(n: int, m: int, degrees: int) -> list[int]:
    """How many of the C(n + m, n) arrangements give U = 0, 1, ..., degrees - 1: the coefficients of the
    Gaussian binomial [n + m choose n](q) = prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i), cut at `degrees`."""
    coefficients = [1] + [0] * (degrees - 1)
    for i in range(1, n + 1):
        for degree in range(degrees - 1, m + i - 1, -1):  # times (1 - q^(m+i))
            coefficients[degree] -= coefficients[degree - m - i]
        for degree in range(i, degrees):  # divided by (1 - q^i): a running sum with stride i
            coefficients[degree] += coefficients[degree - i]
    return coefficients


def kth_difference(values: Sequence[float], others: Sequence[float], k: int) -> float:
    """The k-th smallest (1-based) of value - other over all pairs; both sequences sorted ascending.

    Narrows the value range by bisection, counting the pairs at or below a cut with one binary search per
    value, until few candidates are left, then sorts those: about (n + m) log(n m) steps instead of n m."""
    import numpy as np

    value_array, other_array = np.asarray(values, dtype=float), np.asarray(others, dtype=float)
    if value_array.size * other_array.size <= PICK_AMONG:
        return float(np.partition(np.subtract.outer(value_array, other_array), k - 1, axis=None)[k - 1])
    # A margin on both ends: values[-1] - (values[-1] - others[0]) need not give others[0] back exactly.
    low, high = values[0] - others[-1] - 1.0, values[-1] - others[0] + 1.0
    while True:
        below = _pairs_at_most(value_array, other_array, low)
        if _pairs_at_most(value_array, other_array, high) - below <= PICK_AMONG:
            return float(np.sort(_pairs_between(value_array, other_array, low, high))[k - below - 1])
        middle = (low + high) / 2
        if not low < middle < high:
            return high
        if _pairs_at_most(value_array, other_array, middle) >= k:
            high = middle
        else:
            low = middle


def _pairs_at_most(values: np.ndarray, others: np.ndarray, cut: float) -> int:
    """How many value - other <= cut, that is other >= value - cut."""
    import numpy as np

    return int(others.size * values.size - np.searchsorted(others, values - cut, side="left").sum())


def _pairs_between(values: np.ndarray, others: np.ndarray, low: float, high: float) -> np.ndarray:
    """The differences value - other in (low, high], selected exactly as _pairs_at_most counts them."""
    import numpy as np

    starts = np.searchsorted(others, values - high, side="left")
    ends = np.searchsorted(others, values - low, side="left")
    lengths = ends - starts
    # Every (value, other) pair of the slices at once: value i repeated over others[starts[i]:ends[i]].
    value_index = np.repeat(np.arange(values.size), lengths)
    other_index = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths - starts, lengths)
    return values[value_index] - others[other_index]
