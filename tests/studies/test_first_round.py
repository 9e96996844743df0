"""The first-round effect of a study (studies/results/first_round.py), on plain points: no store."""

import pytest

from benchdash.studies.results.compare import Point
from benchdash.studies.results.first_round import cell_first_round, stouffer_p_value, study_first_round


def _point(build: int, runs: list[float], rounds: list[int | None]) -> Point:
    ordered = sorted(zip(runs, rounds, strict=True))
    return Point(
        1, build, f"b{build}", "17", 10, "select-only", 16, 0.0, None, None, len(runs),
        runs=tuple(tps for tps, _round in ordered), rounds=tuple(round_ for _tps, round_ in ordered),
    )  # fmt: skip


def test_a_cells_first_round_is_measured_against_the_median_of_its_other_runs() -> None:
    cell = cell_first_round([100.0, 120.0, 101.0, 99.0], [2, 1, 3, 4])

    assert cell is not None
    assert cell.effect == pytest.approx(120 / 100 - 1)
    assert cell.z > 2.5  # 120 against 99..101 (2 degrees of freedom): far outside their spread


def test_a_cell_without_rounds_or_with_one_other_run_has_no_effect() -> None:
    assert cell_first_round([100.0, 120.0, 101.0], [None, None, None]) is None
    assert cell_first_round([100.0, 120.0], [1, 2]) is None


def test_two_cells_whose_first_round_ran_faster_than_their_spread_are_beyond_noise() -> None:
    points = [
        _point(1, [130.0, 100, 102, 98, 101], [1, 2, 3, 4, 5]),
        _point(2, [112.0, 99, 101, 100, 98], [1, 2, 3, 4, 5]),
    ]

    found = study_first_round(points)

    assert found is not None
    assert found.effect == pytest.approx((0.2935 + 0.1256) / 2, abs=1e-3)  # the median of 130/100.5 and 112/99.5
    assert found.p_value < 0.001
    assert found.beyond_noise and found.faster and found.percent == 21
    assert found.cells == 2


def test_a_first_round_in_the_middle_of_the_others_is_not_beyond_noise() -> None:
    runs = [100.0, 90, 110, 95, 105]
    found = study_first_round([_point(build, runs, [1, 2, 3, 4, 5]) for build in (1, 2, 3)])

    assert found is not None
    assert found.effect == pytest.approx(0.0)
    assert found.p_value > 0.9
    assert not found.beyond_noise


def test_cells_that_lean_opposite_ways_cancel() -> None:
    faster = cell_first_round([130.0, 100, 102, 98, 101], [1, 2, 3, 4, 5])
    slower = cell_first_round([77.0, 100, 102, 98, 101], [1, 2, 3, 4, 5])
    assert faster is not None and slower is not None and slower.z < 0 < faster.z

    assert stouffer_p_value([faster]) < 0.05
    assert stouffer_p_value([faster, slower]) > 0.5
    assert study_first_round([]) is None
