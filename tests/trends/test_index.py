"""chained_version_index() and study_links(): the arithmetic and the linking rule of the trends line."""

import math
from dataclasses import replace

import pytest

from benchdash.studies.results.compare import Point
from benchdash.studies.results.uncertainty import ratio_interval
from benchdash.trends.index import (
    StudyRef,
    VersionLink,
    chained_interval,
    chained_version_index,
    link_verdicts,
    scenario_trend,
    study_links,
)

STUDY_2013 = StudyRef(1, 2013, "9.2 vs 9.3")
STUDY_2014 = StudyRef(2, 2014, "9.3 vs 9.4")
STUDY_2021 = StudyRef(3, 2021, "13 vs 14")


def _three_studies() -> list[VersionLink]:
    return [
        VersionLink("13", "14", 0.97, STUDY_2021),
        VersionLink("9.2", "9.3", 1.10, STUDY_2013),
        VersionLink("9.3", "9.4", 0.95, STUDY_2014),
    ]


def _line(points) -> list[tuple[str, int, float]]:
    return [(point.version, point.segment, round(point.index, 4)) for point in points]


def test_it_chains_ratios_from_the_oldest_version_at_100():
    points = chained_version_index(_three_studies())
    assert [p.version for p in points] == ["9.2", "9.3", "9.4", "13", "14"]
    assert [p.index for p in points][:3] == pytest.approx([100.0, 110.0, 104.5])


def test_it_breaks_the_line_where_no_study_links_two_versions_and_names_them():
    points = chained_version_index(_three_studies())
    assert [(p.version, p.segment, p.starts_segment, p.gap_from) for p in points] == [
        ("9.2", 1, True, None),
        ("9.3", 1, False, None),
        ("9.4", 1, False, None),
        ("13", 2, True, "9.4"),  # no official study measured both 9.4 and 13
        ("14", 2, False, None),
    ]
    assert [p.index for p in points][3:] == pytest.approx([100.0, 97.0])


def test_each_point_is_labelled_with_the_study_that_measured_it():
    points = chained_version_index(_three_studies())
    assert [p.link.study.study_id if p.link else None for p in points] == [None, 1, 2, None, 3]
    assert points[4].link.study.label == "2021 13 vs 14"
    assert points[4].reached_from == "13"


def test_a_long_link_with_no_study_between_gives_one_unbroken_line():
    # 9.6 -> 15 measured by one study, no study of 11..14: the line does not break after 10 (the old
    # rule followed 9.6 only to its nearest newer version, 10, broke there and dropped 9.6 -> 15).
    links = [
        VersionLink("9.2", "9.6", 1.20, StudyRef(1, 2016, "9.2 vs 9.6"), clients=(1, 16)),
        VersionLink("9.6", "10", 1.10, StudyRef(2, 2017, "9.6 vs 10"), clients=(1, 16)),
        VersionLink("9.6", "15", 1.50, StudyRef(3, 2023, "9.6 vs 15"), clients=(1, 16)),
    ]
    points = chained_version_index(links)
    assert _line(points) == [("9.2", 1, 100.0), ("9.6", 1, 120.0), ("10", 1, 132.0), ("15", 1, 180.0)]
    assert [point.starts_segment for point in points] == [True, False, False, False]
    assert (points[3].link.study.study_id, points[3].reached_from) == (3, "9.6")


def test_a_long_link_joins_the_versions_past_a_gap_in_the_neighbours():
    # The old nearest-newer rule broke at 13 (nothing links 9.6 to 13) and dropped 9.6 -> 15.
    links = [
        VersionLink("9.4", "9.6", 1.09, StudyRef(1, 2016, "9.4 vs 9.6")),
        VersionLink("9.6", "15", 1.50, StudyRef(2, 2023, "9.6 vs 15")),
        VersionLink("13", "14", 0.97, STUDY_2021),
    ]
    points = chained_version_index(links)
    assert _line(points) == [
        ("9.4", 1, 100.0),
        ("9.6", 1, 109.0),
        ("15", 1, 163.5),
        ("13", 2, 100.0),
        ("14", 2, 97.0),
    ]
    assert points[3].gap_from == "9.6"


def test_a_long_link_never_replaces_a_chain_of_studies_that_measured_the_versions_between():
    chain = [
        VersionLink("9.6", "10", 1.10, StudyRef(1, 2017, "9.6 vs 10")),
        VersionLink("10", "11", 1.05, StudyRef(2, 2018, "10 vs 11")),
    ]
    long_link = VersionLink("9.6", "11", 1.30, StudyRef(3, 2024, "9.6 vs 11"))
    points = chained_version_index([*chain, long_link])
    assert _line(points) == [("9.6", 1, 100.0), ("10", 1, 110.0), ("11", 1, 115.5)]
    verdicts = {(v.link.pair, v.verdict) for v in link_verdicts([*chain, long_link], points)}
    assert verdicts == {(("9.6", "10"), "used"), (("10", "11"), "used"), (("9.6", "11"), "joined")}


def test_a_version_only_a_newer_one_links_is_reached_backward():
    links = [
        VersionLink("12", "14", 1.20, StudyRef(1, 2022, "12 vs 14")),
        VersionLink("13", "14", 0.96, StudyRef(2, 2021, "13 vs 14")),
    ]
    points = chained_version_index(links)
    assert _line(points) == [("12", 1, 100.0), ("13", 1, 125.0), ("14", 1, 120.0)]
    assert (points[1].reached_from, points[1].backward) == ("14", True)


def test_for_one_pair_it_prefers_more_shared_client_levels_over_a_newer_study():
    curve = VersionLink("13", "14", 0.97, StudyRef(7, 2021, "eight levels"), clients=(1, 16, 32, 64, 96, 128, 160, 192))
    newer_point = VersionLink("13", "14", 0.80, StudyRef(8, 2026, "one level"), clients=(2,))
    points = chained_version_index([newer_point, curve])
    assert points[1].link == curve
    assert points[1].other_links == (newer_point,)


def test_for_one_pair_with_as_many_levels_it_prefers_the_newer_study_and_keeps_the_others():
    older = VersionLink("13", "14", 0.90, StudyRef(7, 2021, "first look"), clients=(1, 16))
    newer = VersionLink("13", "14", 0.97, StudyRef(8, 2022, "second look"), clients=(1, 16))
    points = chained_version_index([older, newer])
    assert points[1].index == pytest.approx(97.0)
    assert points[1].link == newer
    assert points[1].other_links == (older,)


def test_for_one_pair_of_one_year_it_prefers_the_peaks_to_one_relative_figure():
    # 2014: 41,000 / 34,000 at their peaks (「1.2倍」) rather than the 1.7 at 384 sessions alone.
    peaks = VersionLink("9.3", "9.4", 41000 / 34000, StudyRef(4, 2014, "peaks", "peak"), levels=("peak · 15 cores",))
    at_384 = VersionLink("9.3", "9.4", 1.7, StudyRef(5, 2014, "at 384", "relative"), clients=(384,))
    points = chained_version_index([at_384, peaks])
    assert points[1].link == peaks
    assert points[1].index == pytest.approx(100 * 41000 / 34000)


def test_within_a_year_it_prefers_the_study_measured_at_more_client_levels():
    curve = VersionLink("8.1", "8.3", 1.31, StudyRef(4, 2008, "by clients"), clients=(1, 10, 50, 100))
    single_point = VersionLink("8.1", "8.3", 1.50, StudyRef(5, 2008, "by transactions"), clients=(10,))
    points = chained_version_index([curve, single_point])
    assert points[1].link == curve
    assert points[1].index == pytest.approx(131.0)


def test_it_gives_nothing_for_no_links():
    assert chained_version_index([]) == []


def _point(study_id, build_id, version, clients, median, conditions=""):
    return Point(
        study_id,
        build_id,
        f"PG {version}",
        version,
        5,
        "reference",
        clients,
        median,
        None,
        None,
        3,
        None,
        None,
        conditions,
    )


def test_a_study_links_every_pair_of_its_major_versions_by_the_geometric_mean_of_ratios():
    points = [
        _point(3, 1, "13.4", 1, 437.2413),
        _point(3, 2, "14.0", 1, 412.9373),
        _point(3, 1, "13.4", 16, 4778.467),
        _point(3, 2, "14.0", 16, 4668.131),
    ]
    [link] = study_links(STUDY_2021, points)
    expected = ((412.9373 / 437.2413) * (4668.131 / 4778.467)) ** 0.5
    assert (link.older_version, link.newer_version, link.clients) == ("13", "14", (1, 16))
    assert (link.older_build, link.newer_build) == ("13.4", "14.0")
    assert link.ratio == pytest.approx(expected)


def test_a_study_link_uses_only_the_levels_both_versions_have():
    points = [_point(3, 1, "13.4", 1, 100.0), _point(3, 2, "14.0", 1, 110.0), _point(3, 2, "14.0", 288, 5000.0)]
    [link] = study_links(STUDY_2021, points)
    assert link.clients == (1,)
    assert link.ratio == pytest.approx(1.1)


def test_a_study_link_compares_figures_of_the_same_conditions_only():
    points = [
        _point(6, 1, "8.1.4", 10, 452.462072, "-t 10"),
        _point(6, 1, "8.1.4", 10, 151.04483, "-t 100"),
        _point(6, 2, "8.3.1", 10, 368.715249, "-t 10"),
        _point(6, 2, "8.3.1", 10, 328.353416, "-t 100"),
    ]
    [link] = study_links(StudyRef(6, 2008, "by transactions", "mean"), points)
    assert link.ratio == pytest.approx(math.sqrt((368.715249 / 452.462072) * (328.353416 / 151.04483)))
    assert (link.clients, link.levels, link.client_levels) == ((10,), ("10 · -t 10", "10 · -t 100"), 1)


def test_peak_figures_are_compared_peak_with_peak_wherever_each_peak_was():
    points = [_point(4, 1, "9.3", 192, 34000.0, "15 cores"), _point(4, 2, "9.4rc1", 320, 41000.0, "15 cores")]
    [link] = study_links(StudyRef(4, 2014, "peaks", "peak"), points)
    assert (link.older_version, link.newer_version) == ("9.3", "9.4")
    assert link.ratio == pytest.approx(41000 / 34000)
    assert (link.clients, link.levels, link.client_levels) == ((), ("peak · 15 cores",), 1)


def test_relative_figures_link_every_pair_and_the_nearest_carry_the_index():
    points = [_point(4, 1, "9.4.3", 256, 100.0), _point(4, 2, "9.6.0", 256, 109.0), _point(4, 3, "11.0", 256, 117.0)]
    links = study_links(StudyRef(4, 2018, "EDB", "relative"), points)
    assert [(link.older_version, link.newer_version) for link in links] == [
        ("9.4", "9.6"),
        ("9.4", "11"),
        ("9.6", "11"),
    ]
    index = chained_version_index(links)
    assert [p.index for p in index] == pytest.approx([100.0, 109.0, 117.0])
    assert index[2].reached_from == "9.6"


def test_two_minors_of_one_major_in_one_study_are_kept_apart():
    # 13.2 and 13.4 against 14.0: two links, neither overwritten by the other, and none between 13.2 and 13.4.
    points = [
        _point(9, 1, "13.2", 1, 100.0),
        _point(9, 2, "13.4", 1, 200.0),
        _point(9, 3, "14.0", 1, 220.0),
    ]
    links = study_links(StudyRef(9, 2021, "minors"), points)
    assert [(link.older_build, link.newer_build, round(link.ratio, 3)) for link in links] == [
        ("13.2", "14.0", 2.2),
        ("13.4", "14.0", 1.1),
    ]
    # the rule takes the newer builds' link
    assert chained_version_index(links)[1].link.older_build == "13.4"


def test_a_scenario_trend_chains_the_links_of_every_study():
    points = [
        _point(2, 20, "14.0", 1, 412.9373),
        _point(2, 19, "13.4", 1, 437.2413),
        _point(1, 18, "12.6", 1, 300.0),
        _point(1, 19, "13.2", 1, 330.0),
    ]
    studies = {1: StudyRef(1, 2020, "12 vs 13"), 2: StudyRef(2, 2021, "13 vs 14")}
    trend = scenario_trend((5, "reference", "参照系"), studies, points)
    assert [p.version for p in trend.index] == ["12", "13", "14"]
    assert [p.index for p in trend.index] == pytest.approx([100.0, 110.0, 110.0 * 412.9373 / 437.2413])
    assert [ref.year for ref in trend.studies] == [2020, 2021]
    assert [(c.study_id, c.build_version) for c in trend.points] == [(1, "12.6"), (1, "13.2"), (2, "13.4"), (2, "14.0")]


def test_every_link_says_whether_it_carries_the_index():
    preferred = VersionLink("13", "14", 0.97, StudyRef(7, 2022, "newer"), clients=(1,))
    other = VersionLink("13", "14", 0.90, StudyRef(6, 2021, "older"), clients=(1,))
    verdicts = link_verdicts([other, preferred], chained_version_index([other, preferred]))
    assert [(v.link.study.study_id, v.verdict) for v in verdicts] == [(7, "used"), (6, "preferred")]


def _measured(study_id, build_id, version, clients, runs):
    """A measured point: its median and its runs, each of a round of its own."""
    point = _point(study_id, build_id, version, clients, sorted(runs)[len(runs) // 2])
    return replace(point, runs=tuple(runs), rounds=tuple(range(1, len(runs) + 1)))


def test_a_measured_link_carries_its_ratio_interval_from_the_runs_at_every_level():
    old = [1000.0, 1010.0, 990.0, 1005.0, 995.0]
    points = [
        _measured(3, 1, "13.4", 1, old),
        _measured(3, 2, "14.0", 1, [run * 0.9 for run in old]),
        _measured(3, 1, "13.4", 16, old),
        _measured(3, 2, "14.0", 16, [run * 1.1 for run in old]),
    ]

    [link] = study_links(STUDY_2021, points)

    level_1 = ratio_interval([run * 0.9 for run in old], old)
    level_16 = ratio_interval([run * 1.1 for run in old], old)
    assert link.interval == pytest.approx(
        (math.sqrt(level_1.low * level_16.low), math.sqrt(level_1.high * level_16.high))
    )
    assert link.interval[0] < link.ratio < link.interval[1]


def test_a_published_link_has_no_interval():
    points = [_point(3, 1, "13.4", 1, 437.2413), _point(3, 2, "14.0", 1, 412.9373)]

    [link] = study_links(STUDY_2021, points)

    assert link.interval is None


def test_each_index_point_carries_the_interval_of_the_links_that_reached_it():
    links = [
        VersionLink("9.2", "9.3", 1.10, STUDY_2013, interval=(1.05, 1.15)),
        VersionLink("9.3", "9.4", 0.95, STUDY_2014, interval=(0.90, 1.00)),
        VersionLink("9.4", "9.5", 1.02, STUDY_2021),  # published: no interval
    ]

    points = chained_version_index(links)

    intervals = [point.interval for point in points]
    assert intervals[0] == (100.0, 100.0)
    assert intervals[1] == pytest.approx((105.0, 115.0))
    assert intervals[2] == pytest.approx((94.5, 115.0))
    assert intervals[3] is None  # a link on the way without runs: no interval, never a made-up one


def test_an_interval_reached_backward_divides_crosswise():
    [older, newer] = chained_version_index([VersionLink("9.4", "9.6", 1.25, STUDY_2021, interval=(1.2, 1.3))])
    assert (older.version, newer.interval) == ("9.4", pytest.approx((120.0, 130.0)))
    assert chained_interval((130.0, 140.0), (1.2, 1.3), backward=True) == pytest.approx((100.0, 140.0 / 1.2))
