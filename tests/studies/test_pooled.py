"""The pooled t intervals of studies/results/pooled.py, unpaired and paired by round, against cases worked by hand."""

import math

import pytest

from benchdash.studies.results.pooled import HostSpread, Runs, cell_interval, paired_interval, pooled_interval, squares
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
    assert cell_interval(Runs(noisy_build), Runs(noisy_baseline), QUIET) is None  # rank: 3 against 3 is too few


def test_without_usable_history_the_rank_interval_decides():
    runs, baseline = [100.0, 102.0, 98.0, 101.0, 99.0], [95.0, 96.0, 94.0, 97.0, 93.0]
    for spread in (None, HostSpread(1e-4, 7), HostSpread(0.0, 40)):
        interval = cell_interval(Runs(runs), Runs(baseline), spread)
        assert interval.method == Method.RANK and interval.low == pytest.approx(98 / 96)


def test_one_run_a_side_or_a_zero_tps_gives_no_pooled_interval():
    assert pooled_interval([105.0], BASELINE, QUIET) is None
    assert pooled_interval([105.0, 0.0], BASELINE, QUIET) is None


def test_a_spread_says_its_cv():
    assert HostSpread(math.log(1 + 0.01**2), 20).cv == pytest.approx(0.01)


# A host whose throughput moves between rounds (-10%, +10%) while the build stays 5% ahead within each round.
DRIFTING_BASELINE = Runs([100.0, 90.0, 110.0], rounds=[1, 2, 3])
DRIFTING_BUILD = Runs([105.0, 94.5, 115.5], rounds=[1, 2, 3])


def test_runs_paired_by_round_tell_on_a_host_that_drifts_between_rounds():
    interval = cell_interval(DRIFTING_BUILD, DRIFTING_BASELINE, QUIET)
    # The three differences are all log(1.05): no spread of their own; twice the host's variance, 20 degrees.
    half = 2.0739 * math.sqrt(2e-4 * 20 / 22 / 3)  # t(0.975, 2 + 20)
    assert interval.method == Method.PAIRED_T
    assert interval.low == pytest.approx(1.05 * math.exp(-half), rel=1e-4)
    assert interval.high == pytest.approx(1.05 * math.exp(half), rel=1e-4)
    assert 1.03 < interval.low < 1.05 < interval.high < 1.07
    # Unpaired, the drift is read as spread: more than the history allows, and 3 against 3 has no rank interval.
    assert cell_interval(Runs(DRIFTING_BUILD.tps), Runs(DRIFTING_BASELINE.tps), QUIET) is None


def test_only_rounds_both_sides_ran_are_paired():
    build = Runs([105.0, 94.5, 200.0], rounds=[1, 2, 5])
    baseline = Runs([100.0, 90.0, 80.0], rounds=[1, 2, 4])
    assert build.differences(baseline) == pytest.approx([math.log(1.05)] * 2)
    assert cell_interval(build, baseline, QUIET).method == Method.PAIRED_T
    assert Runs([105.0, 94.5], rounds=[1, None]).differences(baseline) == pytest.approx([math.log(1.05)])


def test_pairs_that_spread_more_than_the_history_fall_back_to_ranks():
    differences = [0.0, 0.10, -0.10]
    assert paired_interval(differences, QUIET) is None
    assert paired_interval(differences, HostSpread(1e-2, 20)).method == Method.PAIRED_T
    build, baseline = Runs([100.0, 99.0, 90.0], rounds=[1, 2, 3]), Runs([100.0, 90.0, 99.0], rounds=[1, 2, 3])
    assert cell_interval(build, baseline, QUIET) is None


def test_runs_without_rounds_take_the_unpaired_interval():
    interval = cell_interval(Runs(BUILD), Runs(BASELINE, rounds=[1, 2, 3]), QUIET)
    assert interval == pooled_interval(BUILD, BASELINE, QUIET)
