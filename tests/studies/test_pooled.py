"""The pooled t interval of studies/results/pooled.py against cases worked by hand."""

import math

import pytest

from benchdash.studies.results.pooled import HostSpread, cell_interval, pooled_interval, squares
from benchdash.studies.results.uncertainty import Method

BUILD = [105.0, 106.0, 104.0]
BASELINE = [100.0, 101.0, 99.0]
# A host whose runs spread by about 1% (variance of log TPS 1e-4), seen in 20 degrees of freedom.
QUIET = HostSpread(1e-4, 20)


def test_three_runs_against_three_tell_on_a_quiet_host():
    interval = pooled_interval(BUILD, BASELINE, QUIET)
    own = squares(BUILD) + squares(BASELINE)
    variance = (own + 1e-4 * 20) / 24
    difference = sum(map(math.log, BUILD)) / 3 - sum(map(math.log, BASELINE)) / 3
    half = 2.0639 * math.sqrt(variance * 2 / 3)  # t(0.975, 24)
    assert interval.low == pytest.approx(math.exp(difference - half), rel=1e-4)
    assert interval.high == pytest.approx(math.exp(difference + half), rel=1e-4)
    assert interval.method == Method.POOLED_T and interval.confidence == 0.95
    assert 1.02 < interval.low < 1.05 < interval.high < 1.08


def test_a_host_noisier_today_than_its_history_is_not_borrowed_from():
    noisy_build, noisy_baseline = [95.0, 115.0, 105.0], [90.0, 110.0, 100.0]
    assert pooled_interval(noisy_build, noisy_baseline, QUIET) is None
    assert cell_interval(noisy_build, noisy_baseline, QUIET) is None  # the rank interval: 3 against 3 is too few


def test_without_usable_history_the_rank_interval_decides():
    runs, baseline = [100.0, 102.0, 98.0, 101.0, 99.0], [95.0, 96.0, 94.0, 97.0, 93.0]
    for spread in (None, HostSpread(1e-4, 7), HostSpread(0.0, 40)):
        interval = cell_interval(runs, baseline, spread)
        assert interval.method == Method.RANK and interval.low == pytest.approx(98 / 96)


def test_one_run_a_side_or_a_zero_tps_gives_no_pooled_interval():
    assert pooled_interval([105.0], BASELINE, QUIET) is None
    assert pooled_interval([105.0, 0.0], BASELINE, QUIET) is None


def test_a_spread_says_its_cv():
    assert HostSpread(math.log(1 + 0.01**2), 20).cv == pytest.approx(0.01)
