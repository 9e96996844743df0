"""What a design can tell before it runs (studies/results/power.py), against the formula worked by hand."""

import math

import pytest
from scipy import stats

from benchdash.studies.results.power import ExpectedSpread, design_power, runs_needed, smallest_callable
from benchdash.studies.results.sequential import Design

QUIET_HISTORY = ExpectedSpread(0.01, "recent studies", 20)
QUIET_NOISE_CHECK = ExpectedSpread(0.01, "noise check")


def test_three_runs_a_side_with_a_history_call_about_four_and_a_half_percent_on_a_one_percent_host():
    sigma = math.sqrt(math.log(1 + 0.01**2))
    expected = math.exp(math.log(1.02) + (stats.t.ppf(0.975, 22) + stats.norm.ppf(0.8)) * sigma * math.sqrt(2 / 3)) - 1
    assert smallest_callable(QUIET_HISTORY, 3, 0.02, 0.95) == pytest.approx(expected)
    assert smallest_callable(QUIET_HISTORY, 3, 0.02, 0.95) == pytest.approx(0.0445, abs=5e-4)


def test_without_a_history_three_rounds_call_a_large_gain_and_a_single_run_is_offered_a_cap():
    power = design_power(QUIET_NOISE_CHECK, Design(3), 0.02)
    sigma = math.sqrt(math.log(1 + 0.01**2))
    paired = math.exp(math.log(1.02) + (stats.t.ppf(0.975, 2) + stats.norm.ppf(0.8)) * sigma * math.sqrt(2 / 3)) - 1
    assert power.smallest_callable == pytest.approx(paired) and power.runs == 3  # the rounds alone, 2 df: +6.4%
    # 6 runs a side: (t(0.975, 10) + z(0.8)) * 1% * sqrt(2/6) = 1.77% <= log(1.02) = 1.98%; at 5, 1.99%
    assert power.runs_needed == 6 and power.cap_offered is None
    single = design_power(QUIET_NOISE_CHECK, Design(1), 0.02)
    assert single.smallest_callable is None and single.cap_offered == 6 and single.cap_calls_threshold
    assert design_power(QUIET_HISTORY, Design(3), 0.02).cap_offered is None


def test_a_noisy_host_needs_more_than_twenty_runs_and_an_adaptive_design_reports_its_cap():
    noisy = ExpectedSpread(0.37, "noise check")
    assert runs_needed(noisy, 0.02) is None
    power = design_power(noisy, Design(3, 10), 0.02)
    assert power.runs == 10 and power.smallest_callable is not None and power.smallest_callable > 0.5
