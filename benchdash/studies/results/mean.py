"""The mean of a cell's runs with its own t interval, and the t interval of a ratio of two means: the statistic of a
study that reports the mean of its runs, as seeds 002 and 003 do ("10 runs, averaged").

Pure functions over TPS values. The method (docs/STATISTICS.md, "A study of means"):

1. A cell's mean: the arithmetic mean of its runs' TPS; its interval mean +- t(n - 1) s / sqrt(n), from 2 runs.
2. The ratio of two means (build / baseline), on log TPS: log(mean) - log(baseline mean), whose variance is, to
   first order (the delta method), s^2 / (n mean^2) + s_b^2 / (m mean_b^2), on Welch's degrees of freedom rounded
   down (a wider interval, never a narrower one).
3. Paired by round: where 2 rounds or more ran both sides, each round's d = run / mean - baseline run / baseline
   mean (the means of those rounds) is what the log ratio moves by to first order, so its variance is var(d) /
   rounds on rounds - 1 degrees of freedom: a drift of the host between rounds falls out of every d, as in
   pooled.py's paired interval.
4. Back on the ratio scale with exp(): the interval holds the ratio of the means the pages show, not the ratio
   of the geometric means the median's intervals (pooled.py, uncertainty.py) are drawn around.

With no spread at all (TPS copied or capped) the interval measures nothing: none is drawn, as in pooled.py.
The host's history is not pooled in: the mean's interval rests on the study's own runs.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from benchdash.studies.results.pooled import Runs, t_interval, t_quantile
from benchdash.studies.results.uncertainty import CONFIDENCE, Method, RatioInterval


@dataclass(frozen=True)
class MeanInterval:
    """A cell's mean TPS and the interval of it (step 1)."""

    low: float
    high: float
    degrees: int


def mean_interval(runs: Sequence[float], confidence: float = CONFIDENCE) -> MeanInterval | None:
    """mean +- t(n - 1) s / sqrt(n) of the runs' TPS; None with fewer than 2 runs."""
    if len(runs) < 2:
        return None
    half = t_quantile(confidence, len(runs) - 1) * statistics.stdev(runs) / math.sqrt(len(runs))
    mean = statistics.fmean(runs)
    return MeanInterval(mean - half, mean + half, len(runs) - 1)


def mean_ratio_interval(runs: Runs, baseline: Runs, confidence: float = CONFIDENCE) -> RatioInterval | None:
    """The interval of mean(runs) / mean(baseline): on the rounds both sides ran where 2 or more did (step 3), else
    on the runs (step 2); None where a TPS is not positive, a side has fewer than 2 runs, or nothing spreads."""
    if not all(tps > 0 for tps in (*runs.tps, *baseline.tps)):
        return None
    pairs = runs.pairs(baseline)
    if len(pairs) >= 2:
        return _paired(pairs, confidence)
    return _unpaired(runs.tps, baseline.tps, confidence)


def _unpaired(runs: Sequence[float], baseline: Sequence[float], confidence: float) -> RatioInterval | None:
    if min(len(runs), len(baseline)) < 2:
        return None
    parts = [statistics.variance(side) / (len(side) * statistics.fmean(side) ** 2) for side in (runs, baseline)]
    error = sum(parts)
    if error == 0:
        return None
    welch = error**2 / sum(part**2 / (len(side) - 1) for part, side in zip(parts, (runs, baseline), strict=True))
    centre = math.log(statistics.fmean(runs)) - math.log(statistics.fmean(baseline))
    return t_interval(centre, error, max(1, math.floor(welch)), confidence, Method.MEAN_T)


def _paired(pairs: Sequence[tuple[float, float]], confidence: float) -> RatioInterval | None:
    mean = statistics.fmean(ours for ours, _theirs in pairs)
    baseline_mean = statistics.fmean(theirs for _ours, theirs in pairs)
    moves = [ours / mean - theirs / baseline_mean for ours, theirs in pairs]
    if statistics.variance(moves) == 0:
        return None
    error = statistics.variance(moves) / len(moves)
    centre = math.log(mean) - math.log(baseline_mean)
    return t_interval(centre, error, len(moves) - 1, confidence, Method.MEAN_PAIRED_T)
