"""The pooled t interval: the spread of a cell borrowed from the host's recent runs, so that 3 runs against 3 can
tell.

With 3 runs a side the rank interval (uncertainty.py) cannot reach 95% at all, and a t interval on the cell's own
runs alone has 4 degrees of freedom (t = 2.78): both throw away what the host already says about its run-to-run
spread. This interval takes it in (docs/STATISTICS.md, "The pooled t interval"):

1. The host's spread (HostSpread): the within-cell variance of log TPS of recent studies of the same scenario and
   client count on the same DB host, pooled, with its degrees of freedom (sum of runs - 1 over the cells).
2. The study's own within-cell variance of log TPS (both builds, n + m - 2 degrees of freedom) must fit it: when
   it exceeds the host's by more than the 95th percentile of F (the host is noisier today than its history), the
   history is not borrowed and the cell falls back to the rank interval.
3. Pooled: s^2 = (own squares + host variance * host degrees) / (n + m - 2 + host degrees). The interval of the
   difference of mean log TPS is d +- t(q, df) s sqrt(1/n + 1/m), back with exp().

Assumptions: log TPS is about normal within a cell (pgbench runs: unimodal, a few percent), the builds share the
spread, and the host's spread now is the one it had in its recent studies (step 2 checks the last).

scipy is imported inside the functions that use it: it takes half a second to import, which every process that
loads the models (a worker, beat, each manage.py command) would otherwise pay at its start.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from benchdash.studies.results.uncertainty import CONFIDENCE, Method, RatioInterval, ratio_interval

# Fewer degrees of freedom than this from the host's history: too little to borrow (the rank interval is used).
HISTORY_MIN_DEGREES = 8
# The percentile of F above which the study's own spread does not fit the host's history (step 2).
FIT_PERCENTILE = 0.95


@dataclass(frozen=True)
class HostSpread:
    """The run-to-run variance of log TPS on a host for one scenario and client count, and its degrees of freedom
    (studies/results/host_spread.py finds it)."""

    variance: float
    degrees: int

    @property
    def cv(self) -> float:
        """The coefficient of variation this variance means on the TPS scale."""
        return math.sqrt(math.exp(self.variance) - 1)

    @property
    def usable(self) -> bool:
        return self.degrees >= HISTORY_MIN_DEGREES and self.variance > 0


def squares(runs: Sequence[float]) -> float:
    """The sum of squared deviations of the runs' log TPS from their mean."""
    logs = [math.log(run) for run in runs]
    mean = statistics.fmean(logs)
    return sum((log - mean) ** 2 for log in logs)


def pooled_interval(
    runs: Sequence[float], baseline_runs: Sequence[float], spread: HostSpread, confidence: float = CONFIDENCE
) -> RatioInterval | None:
    """The interval of runs / baseline_runs with the host's spread pooled in (the module's steps 2 and 3); None
    when a side has fewer than 2 runs or a TPS that is not positive, or the history is unusable or does not fit."""
    if min(len(runs), len(baseline_runs)) < 2 or min(*runs, *baseline_runs) <= 0 or not spread.usable:
        return None
    own_degrees = len(runs) + len(baseline_runs) - 2
    own_squares = squares(runs) + squares(baseline_runs)
    if own_squares / own_degrees > spread.variance * _fit_limit(own_degrees, spread.degrees):
        return None
    degrees = own_degrees + spread.degrees
    variance = (own_squares + spread.variance * spread.degrees) / degrees
    difference = statistics.fmean(map(math.log, runs)) - statistics.fmean(map(math.log, baseline_runs))
    half = _t_quantile(confidence, degrees) * math.sqrt(variance * (1 / len(runs) + 1 / len(baseline_runs)))
    return RatioInterval(math.exp(difference - half), math.exp(difference + half), confidence, Method.POOLED_T)


def cell_interval(
    runs: Sequence[float],
    baseline_runs: Sequence[float],
    spread: HostSpread | None,
    confidence: float = CONFIDENCE,
) -> RatioInterval | None:
    """The interval a cell's verdict rests on: pooled t where the host's history is usable and fits, else rank."""
    pooled = None if spread is None else pooled_interval(runs, baseline_runs, spread, confidence)
    return pooled or ratio_interval(runs, baseline_runs, confidence)


@lru_cache(maxsize=4096)
def _fit_limit(own_degrees: int, history_degrees: int) -> float:
    from scipy import stats

    return float(stats.f.ppf(FIT_PERCENTILE, own_degrees, history_degrees))


@lru_cache(maxsize=4096)
def _t_quantile(confidence: float, degrees: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(1 - (1 - confidence) / 2, degrees))
