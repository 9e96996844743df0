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

Paired by round (paired_interval): a study runs every cell once per round, so the build's run and the baseline's
run of one round are minutes apart at most, while the rounds can be an hour apart. Where the runs carry their
rounds, the interval is drawn on the differences of log TPS within each round instead: a drift of the host
between rounds (a first round faster than the rest, throughput that moves in the middle of a study) falls out of
every difference. A difference of two runs spreads twice as much as one run, so the history it is checked against
and pooled with is twice the host's variance, with its degrees of freedom; the pairs have pairs - 1 of their own.
Runs whose round has no run of the other side are left out of it.

Paired by round, no history (own_paired_interval): on a host with no usable history (a new host, as every cloud
study's is), where the runs are too few for the rank interval (3 a side at 95%), the pairs' own spread alone, a t
interval on pairs - 1 degrees of freedom (3 rounds: 2, t = 4.30). It needs no history and no check, so the first
study on a host can already tell a large difference; it assumes only that the differences of log TPS within a
round are about normal. Where the rank interval exists it decides, as it did, assuming nothing of the noise. The
noise check's micro-runs are not pooled in: they time an awk loop, not the study's pgbench workload, so their
spread is not the pairs' (a lower bound at most).

scipy is imported inside the functions that use it: its import is heavy (docs/BENCHMARKS.md), which every process that
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
class Runs:
    """A cell's runs (TPS) and, where known, the round of each (the same order; empty: not known)."""

    tps: Sequence[float]
    rounds: Sequence[int | None] = ()

    def differences(self, baseline: Runs) -> list[float]:
        """log(run) - log(baseline run) of every round both sides ran (each round once), in round order."""
        return [math.log(ours) - math.log(theirs) for ours, theirs in self.pairs(baseline)]

    def pairs(self, baseline: Runs) -> list[tuple[float, float]]:
        """(run, baseline run) of every round both sides ran (each round once), in round order."""
        if len(self.rounds) != len(self.tps) or len(baseline.rounds) != len(baseline.tps):
            return []
        theirs = {round_: tps for round_, tps in zip(baseline.rounds, baseline.tps, strict=True) if round_ is not None}
        ours = {round_: tps for round_, tps in zip(self.rounds, self.tps, strict=True) if round_ in theirs}
        return [(ours[round_], theirs[round_]) for round_ in sorted(ours)]


@dataclass(frozen=True)
class HostSpread:
    """The run-to-run variance of log TPS on a host for one scenario and client count, and its degrees of freedom
    (studies/results/host_spread.py finds it: the host's own recent studies', or those of hosts of its kind)."""

    variance: float
    degrees: int
    studies: int = 0  # how many studies' cells it pools (host_spread.py)
    kind: str = ""  # the host kind in words where it is the history of hosts of the DB host's kind, else ""

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
    error = variance * (1 / len(runs) + 1 / len(baseline_runs))
    return t_interval(difference, error, degrees, confidence, Method.POOLED_T)


def paired_interval(
    differences: Sequence[float], spread: HostSpread, confidence: float = CONFIDENCE
) -> RatioInterval | None:
    """The interval of the ratio from the differences of log TPS of rounds both sides ran, with twice the host's
    variance pooled in (the module's "paired by round"); None with fewer than 2 pairs, an unusable history, or
    pairs that spread more than the history allows."""
    if len(differences) < 2 or not spread.usable:
        return None
    own_degrees = len(differences) - 1
    mean = statistics.fmean(differences)
    own_squares = sum((difference - mean) ** 2 for difference in differences)
    history_variance = 2 * spread.variance
    if own_squares / own_degrees > history_variance * _fit_limit(own_degrees, spread.degrees):
        return None
    degrees = own_degrees + spread.degrees
    variance = (own_squares + history_variance * spread.degrees) / degrees
    return t_interval(mean, variance / len(differences), degrees, confidence, Method.PAIRED_T)


def own_paired_interval(differences: Sequence[float], confidence: float = CONFIDENCE) -> RatioInterval | None:
    """The interval of the ratio from the differences of log TPS of rounds both sides ran, on their own spread
    and pairs - 1 degrees of freedom (the module's "paired by round, no history"); None with fewer than 2 pairs, or
    pairs that do not spread at all (a spread of 0 measures nothing: TPS copied or capped, never a host's noise)."""
    if len(differences) < 2 or statistics.variance(differences) == 0:
        return None
    error = statistics.variance(differences) / len(differences)
    return t_interval(statistics.fmean(differences), error, len(differences) - 1, confidence, Method.PAIRED_OWN)


def cell_interval(
    runs: Runs, baseline: Runs, spread: HostSpread | None, confidence: float = CONFIDENCE
) -> RatioInterval | None:
    """The interval a cell's verdict rests on. With a usable history: paired t where 2 rounds or more pair the
    runs (its check decides, not the unpaired one's), else pooled t, and rank where the runs do not fit it.
    Without one: rank, and where the runs are too few for it, paired t on the pairs alone (2 rounds or more)."""
    if not all(tps > 0 for tps in (*runs.tps, *baseline.tps)):
        return None
    differences = runs.differences(baseline)
    if spread is None or not spread.usable:
        return ratio_interval(runs.tps, baseline.tps, confidence) or own_paired_interval(differences, confidence)
    if len(differences) >= 2:
        borrowed = paired_interval(differences, spread, confidence)
    else:
        borrowed = pooled_interval(runs.tps, baseline.tps, spread, confidence)
    return borrowed or ratio_interval(runs.tps, baseline.tps, confidence)


def t_interval(centre: float, error: float, degrees: int, confidence: float, method: Method) -> RatioInterval:
    """centre +- t(degrees) sqrt(error) on log TPS (error: the variance of centre), back on the ratio scale."""
    half = t_quantile(confidence, degrees) * math.sqrt(error)
    return RatioInterval(math.exp(centre - half), math.exp(centre + half), confidence, method, degrees)


@lru_cache(maxsize=4096)
def _fit_limit(own_degrees: int, history_degrees: int) -> float:
    from scipy import stats

    return float(stats.f.ppf(FIT_PERCENTILE, own_degrees, history_degrees))


@lru_cache(maxsize=4096)
def t_quantile(confidence: float, degrees: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(1 - (1 - confidence) / 2, degrees))
