"""A study's results: medians and ranges as the store computes them, and the ratio to the baseline."""

import pytest

from benchdash.studies.results.compare import Comparing, Point, compare_with_baseline, ranges_disjoint
from tests.factories import BuildFactory, ScenarioFactory, measured_results

V13, V14 = "13.4", "14.0"


def _runs(version: str, clients: int, *tps_values: float, scenario: str = "reference", conditions: str = "") -> dict:
    return {(version, scenario, clients, conditions): list(tps_values)}


def _results(*runs: dict, baseline: str | None = V13) -> list[Point]:
    figures = {
        (BuildFactory(version=version), ScenarioFactory(slug=slug), clients, conditions): tps_values
        for cells in runs
        for (version, slug, clients, conditions), tps_values in cells.items()
    }
    return measured_results(figures, BuildFactory(version=baseline) if baseline else None)


def _point(points, version, clients, scenario="reference"):
    return next(p for p in points if (p.build_version, p.clients, p.scenario_slug) == (version, clients, scenario))


def _build_id(points, version):
    return next(p.build_id for p in points if p.build_version == version)


pytestmark = pytest.mark.django_db


def test_it_takes_the_middle_value_of_three_runs():
    point = _point(_results(_runs(V13, 1, 437.2413, 430.0, 440.5)), V13, 1)
    assert (point.median, point.minimum, point.maximum, point.n) == (437.2413, 430.0, 440.5, 3)


def test_it_averages_the_two_middle_values_of_four_runs():
    point = _point(_results(_runs(V13, 16, 4000.0, 4100.0, 4300.0, 5000.0)), V13, 16)
    assert point.median == pytest.approx(4200.0)
    assert (point.minimum, point.maximum, point.n) == (4000.0, 5000.0, 4)


def test_it_gives_the_seeds_ratio_for_the_2021_one_client_pair():
    newer = _point(_results(_runs(V13, 1, 437.2413), _runs(V14, 1, 412.9373)), V14, 1)
    assert newer.ratio == pytest.approx(0.944, abs=0.0005)
    assert newer.ratio_percent == 94


def test_the_baseline_itself_has_no_ratio():
    baseline = _point(_results(_runs(V13, 1, 437.2413), _runs(V14, 1, 412.9373)), V13, 1)
    assert baseline.ratio is None
    assert baseline.ranges_disjoint is None


def test_a_point_without_a_baseline_figure_has_no_ratio():
    runs = (_runs(V13, 1, 437.0), _runs(V14, 1, 412.0), _runs(V14, 32, 8193.761))
    assert _point(_results(*runs), V14, 32).ratio is None
    assert _point(_results(*runs, baseline=None), V14, 1).ratio is None


def test_it_compares_only_within_the_same_scenario_and_clients():
    points = _results(
        _runs(V13, 1, 100.0),
        _runs(V14, 1, 150.0),
        _runs(V13, 1, 1000.0, scenario="update"),
        _runs(V14, 1, 900.0, scenario="update"),
    )
    assert _point(points, V14, 1).ratio == pytest.approx(1.5)
    assert _point(points, V14, 1, "update").ratio == pytest.approx(0.9)


def test_it_marks_ranges_that_do_not_overlap_as_disjoint():
    points = _results(_runs(V13, 1, 430.0, 437.0, 440.0), _runs(V14, 1, 410.0, 413.0, 415.0))
    assert _point(points, V14, 1).ranges_disjoint is True


def test_it_does_not_mark_overlapping_ranges():
    points = _results(_runs(V13, 16, 4700.0, 4778.0, 4800.0), _runs(V14, 16, 4600.0, 4668.0, 4710.0))
    assert _point(points, V14, 16).ranges_disjoint is False


def test_one_run_a_side_cannot_tell_whether_the_ranges_are_apart():
    points = _results(_runs(V13, 1, 437.2413), _runs(V14, 1, 412.9373, 415.0, 420.0))
    assert _point(points, V14, 1).ranges_disjoint is None


def test_figures_that_differ_in_their_conditions_stay_apart():
    baseline = [
        _runs(V13, 10, tps, conditions=t)
        for tps, t in ((452.0, "-t 10"), (151.0, "-t 100"), (104.0, "-t 1000"), (112.0, "-t 500"))
    ]
    points = _results(*baseline, _runs(V14, 10, 328.0, conditions="-t 100"))
    assert [(p.conditions, p.build_version, p.n) for p in points] == [
        ("-t 10", "13.4", 1),
        ("-t 100", "13.4", 1),
        ("-t 100", "14.0", 1),
        ("-t 500", "13.4", 1),
        ("-t 1000", "13.4", 1),
    ]
    assert _point([p for p in points if p.conditions == "-t 100"], V14, 10).ratio == pytest.approx(328.0 / 151.0)


def test_a_peak_is_compared_with_the_baselines_peak_wherever_each_was():
    points = _results(_runs(V13, 192, 34000.0), _runs(V14, 320, 41000.0))
    assert _point(points, V14, 320).ratio is None  # no baseline figure at 320 clients
    peaks = compare_with_baseline(points, _build_id(points, V13), Comparing(peaks=True))
    assert _point(peaks, V14, 320).ratio == pytest.approx(41000 / 34000)


def test_touching_ranges_overlap():
    assert ranges_disjoint((1.0, 2.0), (2.0, 3.0)) is False
    assert ranges_disjoint((1.0, 2.0), (2.5, 3.0)) is True
    assert ranges_disjoint((2.5, 3.0), (1.0, 2.0)) is True


def test_it_orders_points_by_scenario_clients_and_version():
    points = _results(_runs(V14, 16, 2.0), _runs(V13, 16, 1.0), _runs(V14, 1, 2.0), _runs(V13, 1, 1.0))
    assert [(p.clients, p.build_version) for p in points] == [(1, "13.4"), (1, "14.0"), (16, "13.4"), (16, "14.0")]


def test_a_point_keeps_its_runs_ascending_and_their_spread():
    point = _point(_results(_runs(V13, 1, 110.0, 90.0, 100.0)), V13, 1)
    assert point.runs == (90.0, 100.0, 110.0)
    assert point.cv == pytest.approx(0.1)


def test_the_comparison_gives_the_interval_and_the_verdict_at_the_threshold():
    results = _results(_runs(V13, 1, 95.0, 96.0, 94.0, 97.0, 93.0), _runs(V14, 1, 100.0, 102.0, 98.0, 101.0, 99.0))
    baseline_id = _build_id(results, V13)
    points = compare_with_baseline(results, baseline_id, Comparing(threshold=0.02))
    newer = _point(points, V14, 1)
    assert (newer.interval.low, newer.interval.high) == pytest.approx((98 / 96, 102 / 94))
    assert newer.verdict == "faster"
    assert _point(compare_with_baseline(points, baseline_id, Comparing(threshold=0.03)), V14, 1).verdict == "cant_tell"
    assert _point(points, V13, 1).verdict is None


def test_a_published_figure_has_no_runs_and_no_verdict():
    published = [
        Point(1, build, f"b{build}", version, 10, "reference", 1, tps, None, None, 3)
        for build, version, tps in ((1, V13, 437.2413), (2, V14, 412.9373))
    ]
    newer = _point(compare_with_baseline(published, 1), V14, 1)
    assert (newer.ratio_percent, newer.interval, newer.verdict, newer.cv) == (94, None, None, None)
