"""summarize(): medians, ranges and the ratio to the baseline, on plain rows."""

import pytest

from benchdash.studies.results import Point, TpsRow, compare_with_baseline, ranges_disjoint, summarize

V13, V14 = 1, 2
REFERENCE, UPDATE = 10, 11


def _rows(build_id: int, clients: int, *tps_values: float, scenario_id: int = REFERENCE) -> list[TpsRow]:
    version = {V13: "13.4", V14: "14.0"}[build_id]
    slug = {REFERENCE: "reference", UPDATE: "update"}[scenario_id]
    return [
        TpsRow(1, build_id, f"PostgreSQL {version}", version, scenario_id, slug, clients, tps) for tps in tps_values
    ]


def _point(points, build_id, clients, scenario_id=REFERENCE):
    return next(p for p in points if (p.build_id, p.clients, p.scenario_id) == (build_id, clients, scenario_id))


def test_it_takes_the_middle_value_of_three_runs():
    points = summarize(_rows(V13, 1, 437.2413, 430.0, 440.5), baseline_build_id=V13)
    point = _point(points, V13, 1)
    assert (point.median, point.minimum, point.maximum, point.n) == (437.2413, 430.0, 440.5, 3)


def test_it_averages_the_two_middle_values_of_four_runs():
    point = _point(summarize(_rows(V13, 16, 4000.0, 4100.0, 4300.0, 5000.0), V13), V13, 16)
    assert point.median == pytest.approx(4200.0)
    assert (point.minimum, point.maximum, point.n) == (4000.0, 5000.0, 4)


def test_it_gives_the_seeds_ratio_for_the_2021_one_client_pair():
    rows = _rows(V13, 1, 437.2413) + _rows(V14, 1, 412.9373)
    newer = _point(summarize(rows, baseline_build_id=V13), V14, 1)
    assert newer.ratio == pytest.approx(0.944, abs=0.0005)
    assert newer.ratio_percent == 94


def test_the_baseline_itself_has_no_ratio():
    rows = _rows(V13, 1, 437.2413) + _rows(V14, 1, 412.9373)
    baseline = _point(summarize(rows, baseline_build_id=V13), V13, 1)
    assert baseline.ratio is None
    assert baseline.ranges_disjoint is None


def test_a_point_without_a_baseline_figure_has_no_ratio():
    rows = _rows(V13, 1, 437.0) + _rows(V14, 1, 412.0) + _rows(V14, 32, 8193.761)
    assert _point(summarize(rows, V13), V14, 32).ratio is None
    assert _point(summarize(rows, None), V14, 1).ratio is None


def test_it_compares_only_within_the_same_scenario_and_clients():
    rows = (
        _rows(V13, 1, 100.0)
        + _rows(V14, 1, 150.0)
        + _rows(V13, 1, 1000.0, scenario_id=UPDATE)
        + _rows(V14, 1, 900.0, scenario_id=UPDATE)
    )
    points = summarize(rows, V13)
    assert _point(points, V14, 1).ratio == pytest.approx(1.5)
    assert _point(points, V14, 1, UPDATE).ratio == pytest.approx(0.9)


def test_it_marks_ranges_that_do_not_overlap_as_disjoint():
    rows = _rows(V13, 1, 430.0, 437.0, 440.0) + _rows(V14, 1, 410.0, 413.0, 415.0)
    assert _point(summarize(rows, V13), V14, 1).ranges_disjoint is True


def test_it_does_not_mark_overlapping_ranges():
    rows = _rows(V13, 16, 4700.0, 4778.0, 4800.0) + _rows(V14, 16, 4600.0, 4668.0, 4710.0)
    assert _point(summarize(rows, V13), V14, 16).ranges_disjoint is False


def test_one_run_a_side_cannot_tell_whether_the_ranges_are_apart():
    rows = _rows(V13, 1, 437.2413) + _rows(V14, 1, 412.9373, 415.0, 420.0)
    assert _point(summarize(rows, V13), V14, 1).ranges_disjoint is None


def test_figures_that_differ_in_their_conditions_stay_apart():
    rows = [
        TpsRow(1, V13, "PostgreSQL 13.4", "13.4", REFERENCE, "reference", 10, tps, conditions)
        for tps, conditions in ((452.0, "-t 10"), (151.0, "-t 100"), (104.0, "-t 1000"), (112.0, "-t 500"))
    ] + [TpsRow(1, V14, "PostgreSQL 14.0", "14.0", REFERENCE, "reference", 10, 328.0, "-t 100")]
    points = summarize(rows, V13)
    assert [(p.conditions, p.build_version, p.n) for p in points] == [
        ("-t 10", "13.4", 1),
        ("-t 100", "13.4", 1),
        ("-t 100", "14.0", 1),
        ("-t 500", "13.4", 1),
        ("-t 1000", "13.4", 1),
    ]
    assert _point([p for p in points if p.conditions == "-t 100"], V14, 10).ratio == pytest.approx(328.0 / 151.0)


def test_a_peak_is_compared_with_the_baselines_peak_wherever_each_was():
    points = summarize(_rows(V13, 192, 34000.0) + _rows(V14, 320, 41000.0), V13)
    assert _point(points, V14, 320).ratio is None  # no baseline figure at 320 clients
    peaks = compare_with_baseline(points, V13, peaks=True)
    assert _point(peaks, V14, 320).ratio == pytest.approx(41000 / 34000)


def test_touching_ranges_overlap():
    assert ranges_disjoint((1.0, 2.0), (2.0, 3.0)) is False
    assert ranges_disjoint((1.0, 2.0), (2.5, 3.0)) is True
    assert ranges_disjoint((2.5, 3.0), (1.0, 2.0)) is True


def test_it_orders_points_by_scenario_clients_and_version():
    rows = _rows(V14, 16, 2.0) + _rows(V13, 16, 1.0) + _rows(V14, 1, 2.0) + _rows(V13, 1, 1.0)
    order = [(p.clients, p.build_version) for p in summarize(rows, V13)]
    assert order == [(1, "13.4"), (1, "14.0"), (16, "13.4"), (16, "14.0")]


def test_a_point_keeps_its_runs_ascending_and_their_spread():
    point = _point(summarize(_rows(V13, 1, 110.0, 90.0, 100.0), V13), V13, 1)
    assert point.runs == (90.0, 100.0, 110.0)
    assert point.cv == pytest.approx(0.1)


def test_the_comparison_gives_the_interval_and_the_verdict_at_the_threshold():
    rows = _rows(V13, 1, 95.0, 96.0, 94.0, 97.0, 93.0) + _rows(V14, 1, 100.0, 102.0, 98.0, 101.0, 99.0)
    points = compare_with_baseline(summarize(rows, V13), V13, threshold=0.02)
    newer = _point(points, V14, 1)
    assert (newer.interval.low, newer.interval.high) == pytest.approx((98 / 96, 102 / 94))
    assert newer.verdict == "faster"
    assert _point(compare_with_baseline(points, V13, threshold=0.03), V14, 1).verdict == "cant_tell"
    assert _point(points, V13, 1).verdict is None


def test_a_published_figure_has_no_runs_and_no_verdict():
    published = [
        Point(1, build, f"b{build}", version, REFERENCE, "reference", 1, tps, None, None, 3)
        for build, version, tps in ((V13, "13.4", 437.2413), (V14, "14.0", 412.9373))
    ]
    newer = _point(compare_with_baseline(published, V13), V14, 1)
    assert (newer.ratio_percent, newer.interval, newer.verdict, newer.cv) == (94, None, None, None)
