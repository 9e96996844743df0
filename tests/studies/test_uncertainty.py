"""The interval arithmetic of studies/results/uncertainty.py against cases worked by hand and the published tables."""

import math
import random
from itertools import combinations

import pytest

from benchdash.studies.results.uncertainty import (
    RatioInterval,
    Verdict,
    interval_rank,
    is_settled,
    kth_difference,
    ratio_interval,
    verdict,
)
from workers.spread import coefficient_of_variation

NEWER = [100.0, 102.0, 98.0, 101.0, 99.0]
OLDER = [95.0, 96.0, 94.0, 97.0, 93.0]


def test_the_spread_of_a_cell_is_its_standard_deviation_over_its_mean():
    assert coefficient_of_variation([90.0, 100.0, 110.0]) == pytest.approx(0.1)
    assert coefficient_of_variation([287_000.0, 324_000.0]) == pytest.approx(26162.95 / 305_500, rel=1e-6)


def test_one_run_has_no_spread():
    assert coefficient_of_variation([100.0]) is None
    assert coefficient_of_variation([]) is None


@pytest.mark.parametrize(
    ("runs", "baseline_runs", "k"),
    # The Mann-Whitney critical values for alpha = 0.05 two-sided (U <= k - 1 rejects), as printed in the tables.
    [(4, 4, 1), (3, 5, 1), (5, 5, 3), (6, 6, 6), (8, 8, 14), (10, 10, 24), (20, 20, 128)],
)
def test_the_rank_of_the_interval_ends_matches_the_mann_whitney_table(runs, baseline_runs, k):
    assert interval_rank(runs, baseline_runs)[0] == k


def test_the_rank_holds_at_least_the_confidence_asked_as_the_exact_count_says():
    # 5 against 5: 252 arrangements, 1 + 1 + 2 of them give U <= 2 on each side: 1 - 8/252.
    assert interval_rank(5, 5)[1] == pytest.approx(1 - 8 / 252)


def test_the_rank_counts_every_arrangement_when_enumerated():
    # Brute force over the C(9, 4) = 126 placements of 4 baseline runs among 9 ranks.
    u_values = [
        sum(1 for b in baseline for a in range(9) if a not in baseline and a > b)
        for baseline in combinations(range(9), 4)
    ]
    tail = sorted(u_values)
    k, achieved = interval_rank(5, 4)
    assert sum(1 for u in tail if u <= k - 1) / 126 <= 0.025 < sum(1 for u in tail if u <= k) / 126
    assert achieved == pytest.approx(1 - 2 * sum(1 for u in tail if u <= k - 1) / 126)


@pytest.mark.parametrize(("runs", "baseline_runs"), [(3, 3), (3, 4), (2, 4), (1, 30)])
def test_three_runs_against_three_are_too_few_for_a_95_percent_interval(runs, baseline_runs):
    assert interval_rank(runs, baseline_runs) is None
    assert ratio_interval([100.0 + i for i in range(runs)], [90.0 + i for i in range(baseline_runs)]) is None


def test_the_normal_approximation_takes_over_where_the_exact_counts_leave_off():
    exact_k = interval_rank(100, 100)[0]
    approximate_k = interval_rank(100, 101)[0]
    assert exact_k == 4198
    assert abs(approximate_k - exact_k * 101 / 100) < 3


def test_the_interval_of_five_runs_against_five_is_the_third_smallest_and_largest_pairwise_ratio():
    interval = ratio_interval(NEWER, OLDER)
    ratios = sorted(new / old for new in NEWER for old in OLDER)
    assert ratios[2] == pytest.approx(98 / 96) and ratios[-3] == pytest.approx(102 / 94)
    assert (interval.low, interval.high) == pytest.approx((98 / 96, 102 / 94))
    assert interval.confidence == pytest.approx(1 - 8 / 252)


def test_four_runs_against_four_span_every_pairwise_ratio():
    interval = ratio_interval([100.0, 104.0, 96.0, 101.0], [99.0, 103.0, 97.0, 100.0])
    assert (interval.low, interval.high) == pytest.approx((96 / 103, 104 / 97))


def test_the_interval_of_a_ratio_is_the_inverse_of_the_reverse_ratio():
    forward, backward = ratio_interval(NEWER, OLDER), ratio_interval(OLDER, NEWER)
    assert (forward.low, forward.high) == pytest.approx((1 / backward.high, 1 / backward.low))


@pytest.mark.parametrize(
    ("threshold", "expected"), [(0.0, Verdict.FASTER), (0.02, Verdict.FASTER), (0.03, Verdict.CANT_TELL)]
)
def test_faster_means_the_whole_interval_lies_above_the_threshold(threshold, expected):
    assert verdict(ratio_interval(NEWER, OLDER), threshold) == expected  # interval 1.0208 .. 1.0851


def test_slower_means_the_whole_interval_lies_below_the_threshold():
    assert verdict(ratio_interval(OLDER, NEWER), 0.02) == Verdict.SLOWER  # 0.9216 .. 0.9796


def test_one_build_against_the_same_runs_cannot_tell():
    assert verdict(ratio_interval(NEWER, NEWER), 0.0) == Verdict.CANT_TELL


def test_no_interval_is_too_few_runs_to_tell():
    assert verdict(None) == Verdict.TOO_FEW_RUNS


@pytest.mark.parametrize(
    ("low", "high", "settled"),
    [
        (1.025, 1.09, True),  # wholly above +2%: faster, more runs would not change it
        (0.90, 0.97, True),  # wholly below -2%
        (0.99, 1.015, True),  # wholly within +-2%: no difference of 2% or more
        (1.01, 1.05, False),  # crosses +2%
        (0.97, 1.00, False),  # crosses -2%
        (0.95, 1.05, False),  # crosses both
    ],
)
def test_an_interval_is_settled_when_it_crosses_neither_edge_of_the_threshold(low, high, settled):
    assert is_settled(RatioInterval(low, high, 0.95), 0.02) is settled


def test_too_few_runs_are_never_settled():
    assert is_settled(None, 0.02) is False


def test_the_kth_pairwise_difference_of_many_runs_is_the_sorted_one():
    rng = random.Random(11)
    values = sorted(rng.gauss(12.0, 0.1) for _ in range(300))
    others = sorted(rng.gauss(12.0, 0.1) for _ in range(250))
    every = sorted(value - other for value in values for other in others)
    for k in (1, 20, 37_500, 74_000, 75_000):
        assert kth_difference(values, others, k) == every[k - 1]


@pytest.mark.parametrize("count", [97, 5000])
def test_the_largest_difference_is_found_when_rounding_hides_it_from_a_range_search(count):
    rng = random.Random(7)
    values = sorted(round(rng.gauss(0, 1), 9) for _ in range(count))
    others = [0.21411061]
    every = sorted(value - other for value in values for other in others)
    assert kth_difference(values, others, count) == every[-1]
    assert kth_difference(values, others, 1) == every[0]


def test_a_non_positive_tps_has_no_interval():
    assert ratio_interval([0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]) is None
    assert math.isfinite(ratio_interval([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]).high)


def test_a_stricter_confidence_widens_the_interval_and_needs_more_runs():
    build, baseline = [1.10, 1.12, 1.09, 1.11, 1.13, 1.14], [1.0, 1.01, 0.99, 1.02, 0.98, 1.03]
    at_95 = ratio_interval(build, baseline)
    at_99 = ratio_interval(build, baseline, 1 - 0.05 / 8)
    assert at_95 is not None and at_99 is not None
    assert at_99.confidence >= 0.99375 > at_95.confidence >= 0.95
    assert at_99.low < at_95.low and at_99.high > at_95.high
    # 5 against 5 reaches 95% (the least two-sided p is 2/252) but not 99.375%
    assert ratio_interval(build[:5], baseline[:5]) is not None
    assert ratio_interval(build[:5], baseline[:5], 1 - 0.05 / 8) is None
