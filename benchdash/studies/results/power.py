"""What a design can tell before it runs: from the run-to-run spread expected on the DB host, the smallest
difference the planned runs call at the study's confidence, the runs a side the threshold needs, and the adaptive
cap that would reach a verdict where the plan cannot (docs/STATISTICS.md, "Power before a study runs").

Normal theory on log TPS, with the spread sigma = sqrt(log(1 + CV^2)) per run: an interval of n runs against n has
the half-width q * sigma * sqrt(2 / n), q the quantile of the interval that will be drawn (paired t, n pairs of
runs by round, with n - 1 degrees of freedom and the host's where its recent studies give a history, else the t
quantile of the study's own 2n - 2 degrees of freedom, standing for the rank interval, which needs at least 4 runs
a side at 95%, and below that paired t on the rounds alone, n - 1 degrees of freedom). A real gain d is called
"faster" with 80% power when log(1 + d) >= log(1 + t) + (q + z_0.8) * sigma * sqrt(2 / n).

scipy is imported inside the functions that use it: its import is heavy (docs/BENCHMARKS.md), which every process that
loads the models (a worker, beat, each manage.py command) would otherwise pay at its start.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from benchdash.studies.results.pooled import HISTORY_MIN_DEGREES, HostSpread, squares
from benchdash.studies.results.sequential import Design
from benchdash.studies.results.uncertainty import interval_rank

POWER = 0.8
Z_POWER = NormalDist().inv_cdf(POWER)
MAX_RUNS = 20  # the form's most repetitions, and the most an adaptive cap is offered


@dataclass(frozen=True)
class ExpectedSpread:
    """The run-to-run CV expected on a host, and where it comes from: `degrees` of a history the pooled t interval
    can borrow (recent studies, the host's or its kind's), or None (the noise check's micro-run, a lower bound for
    pgbench)."""

    cv: float
    source: str  # "recent studies" | "host kind" | "noise check" | "this study"
    degrees: int | None = None

    @property
    def sigma(self) -> float:
        return math.sqrt(math.log(1 + self.cv * self.cv))

    @property
    def borrowable(self) -> bool:
        return self.degrees is not None and self.degrees >= HISTORY_MIN_DEGREES


@dataclass(frozen=True)
class DesignPower:
    """The figures of one scenario: the smallest gain the planned runs call (None: no verdict possible), the runs
    a side the threshold needs, and the adaptive cap offered where the plan cannot tell (None: not needed), which
    either calls the threshold at 80% power or only draws an interval at all (cap_calls_threshold)."""

    spread: ExpectedSpread
    runs: int
    smallest_callable: float | None
    runs_needed: int | None
    cap_offered: int | None
    cap_calls_threshold: bool = False


def design_power(spread: ExpectedSpread, design: Design, threshold: float) -> DesignPower:
    """The figures for a design's planned runs (its cap's, for an adaptive one) at the threshold."""
    runs = design.looks[-1]
    smallest = smallest_callable(spread, runs, threshold, design.final_confidence)
    needed = runs_needed(spread, threshold)
    offered, calls = (None, False) if smallest is not None else cap_reaching(spread, design.planned, threshold)
    return DesignPower(spread, runs, smallest, needed, offered, calls)


def smallest_callable(spread: ExpectedSpread, runs: int, threshold: float, confidence: float) -> float | None:
    """The smallest real gain called "faster" with 80% power by `runs` runs a side; None when no interval can be
    drawn (a single run a side)."""
    quantile = interval_quantile(spread, runs, confidence)
    if quantile is None:
        return None
    return math.exp(math.log(1 + threshold) + _half_width(spread, runs, quantile)) - 1


def runs_needed(spread: ExpectedSpread, threshold: float, confidence: float = 0.95) -> int | None:
    """The fewest runs a side whose interval at 80% power is no wider than the threshold: then a real gain of twice
    the threshold is called, and no change is told apart from one; None above MAX_RUNS."""
    for runs in range(2, MAX_RUNS + 1):
        quantile = interval_quantile(spread, runs, confidence)
        if quantile is not None and _half_width(spread, runs, quantile) <= math.log(1 + threshold):
            return runs
    return None


def _half_width(spread: ExpectedSpread, runs: int, quantile: float) -> float:
    """The half-width, on log TPS, of the interval at 80% power: (q + z_0.8) sigma sqrt(2 / n)."""
    return (quantile + Z_POWER) * spread.sigma * math.sqrt(2 / runs)


def cap_reaching(spread: ExpectedSpread, planned: int, threshold: float) -> tuple[int | None, bool]:
    """The adaptive cap to offer where the plan cannot tell, and whether it calls the threshold: the smallest whose
    last look's interval at 80% power is no wider than the threshold (as runs_needed), True; else the smallest at
    which an interval exists at all, False."""
    reachable = None
    for cap in range(max(planned, 1) + 1, MAX_RUNS + 1):
        quantile = interval_quantile(spread, cap, Design(planned, cap).final_confidence)
        if quantile is None:
            continue
        if _half_width(spread, cap, quantile) <= math.log(1 + threshold):
            return cap, True
        reachable = reachable or cap
    return reachable, False


def interval_quantile(spread: ExpectedSpread, runs: int, confidence: float) -> float | None:
    """q of the interval that would be drawn with `runs` a side (see the module's description)."""
    from scipy import stats

    tail = 1 - (1 - confidence) / 2
    if runs < 2:
        return None
    if spread.borrowable:
        return float(stats.t.ppf(tail, runs - 1 + (spread.degrees or 0)))
    if interval_rank(runs, runs, confidence) is None:  # too few for ranks: the rounds alone, paired
        return float(stats.t.ppf(tail, runs - 1))
    return float(stats.t.ppf(tail, 2 * runs - 2))


@dataclass(frozen=True)
class UncalledCell:
    """Why a compared cell has no verdict: the spread of its runs and its baseline's (pooled, as a CV), the runs
    a side, and the smallest real gain those runs call at 80% power; both None where one run a side has no
    spread and draws no interval."""

    cv: float | None
    runs: int
    smallest_callable: float | None


def uncalled_cell(
    runs: Sequence[float], baseline_runs: Sequence[float], threshold: float, confidence: float
) -> UncalledCell | None:
    """The figures that say why a cell's interval reached no verdict, from its own runs and its baseline's; None
    when either side has no positive runs to spread."""
    if not runs or not baseline_runs or min(runs) <= 0 or min(baseline_runs) <= 0:
        return None
    a_side = min(len(runs), len(baseline_runs))
    degrees = max(len(runs) - 1, 0) + max(len(baseline_runs) - 1, 0)
    if degrees == 0:
        return UncalledCell(None, a_side, None)
    pooled = HostSpread((squares(runs) + squares(baseline_runs)) / degrees, degrees)
    spread = ExpectedSpread(pooled.cv, "this study", degrees)
    return UncalledCell(pooled.cv, a_side, smallest_callable(spread, a_side, threshold, confidence))
