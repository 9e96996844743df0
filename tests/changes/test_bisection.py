"""The bisect's driving rule on constructed verdicts: it finds the first changed minor within ceil(log2 N) + 1
studies wherever the change is, and stops honestly when a verdict cannot be reached."""

import math

import pytest

from benchdash.changes.bisection import SAME, Outcome, bisect_next, bisect_start, most_studies
from benchdash.studies.results.uncertainty import Verdict


def run_bisect(count: int, first_changed: int, direction: str, *, known: bool = False) -> tuple[int | None, int]:
    """Drive a bisect whose studies answer as a change at `first_changed` would; returns (found, studies)."""
    step = bisect_start(count, direction if known else None)
    studies = 0
    while step.outcome == Outcome.NEXT:
        studies += 1
        changed = step.compared >= first_changed
        step = bisect_next(step, direction if changed else SAME)
    assert step.outcome == Outcome.FOUND
    return step.first_changed, studies


@pytest.mark.parametrize("count", [2, 3, 4, 5, 8, 11, 15, 19])
@pytest.mark.parametrize("direction", [Verdict.SLOWER, Verdict.FASTER])
def test_it_finds_every_first_changed_minor_within_the_bound(count, direction):
    for first_changed in range(1, count):
        found, studies = run_bisect(count, first_changed, direction)
        assert found == first_changed
        assert studies <= math.ceil(math.log2(count)) + 1 == most_studies(count)


def test_a_bisect_from_a_change_point_skips_the_confirmation():
    found, studies = run_bisect(11, 7, Verdict.SLOWER, known=True)
    assert (found, studies) == (7, 3)
    assert run_bisect(11, 7, Verdict.SLOWER) == (7, 4)


def test_seventeen_zero_to_seventeen_ten_compares_the_midpoints_in_order():
    minors = [f"17.{minor}" for minor in range(11)]
    step = bisect_start(len(minors))
    compared = []
    for verdict in (Verdict.SLOWER, SAME, Verdict.SLOWER, SAME):
        compared.append(minors[step.compared])
        step = bisect_next(step, verdict)
    assert compared == ["17.10", "17.5", "17.7", "17.6"]
    assert (step.outcome, minors[step.first_changed]) == (Outcome.FOUND, "17.7")


def test_ends_without_a_difference_mean_no_change():
    step = bisect_next(bisect_start(5), SAME)
    assert step.outcome == Outcome.NO_CHANGE


@pytest.mark.parametrize("verdict", [Verdict.CANT_TELL, Verdict.TOO_FEW_RUNS, Verdict.FASTER])
def test_an_unsettled_or_opposite_verdict_stops_the_bisect_where_it_stood(verdict):
    step = bisect_start(11, Verdict.SLOWER)
    assert step.compared == 5
    stopped = bisect_next(step, verdict)
    assert stopped.outcome == Outcome.INCONCLUSIVE
    assert (stopped.state.low, stopped.state.high) == (0, 10)
    with pytest.raises(ValueError):
        bisect_next(stopped, SAME)


def test_a_bisect_needs_two_minors():
    with pytest.raises(ValueError):
        bisect_start(1)
