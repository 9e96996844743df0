"""chained_version_index() and study_links(): the arithmetic of the trends line."""

import pytest

from benchdash.studies.results import Point
from benchdash.trends.index import StudyRef, VersionLink, chained_version_index, scenario_trend, study_links

STUDY_2013 = StudyRef(1, 2013, "9.2 vs 9.3")
STUDY_2014 = StudyRef(2, 2014, "9.3 vs 9.4")
STUDY_2021 = StudyRef(3, 2021, "13 vs 14")


def _three_studies() -> list[VersionLink]:
    return [
        VersionLink("13", "14", 0.97, STUDY_2021),
        VersionLink("9.2", "9.3", 1.10, STUDY_2013),
        VersionLink("9.3", "9.4", 0.95, STUDY_2014),
    ]


def test_it_chains_ratios_from_the_oldest_version_at_100():
    points = chained_version_index(_three_studies())
    assert [p.version for p in points] == ["9.2", "9.3", "9.4", "13", "14"]
    assert [p.index for p in points][:3] == pytest.approx([100.0, 110.0, 104.5])


def test_it_breaks_the_line_where_no_study_links_two_versions():
    points = chained_version_index(_three_studies())
    assert [(p.version, p.segment, p.starts_segment) for p in points] == [
        ("9.2", 1, True),
        ("9.3", 1, False),
        ("9.4", 1, False),
        ("13", 2, True),
        ("14", 2, False),
    ]
    assert [p.index for p in points][3:] == pytest.approx([100.0, 97.0])


def test_each_point_is_labelled_with_the_study_that_measured_it():
    points = chained_version_index(_three_studies())
    assert [p.link.study.study_id if p.link else None for p in points] == [None, 1, 2, None, 3]
    assert points[4].link.study.label == "2021 13 vs 14"


def test_it_uses_the_newest_study_for_a_pair_and_keeps_the_others():
    older = VersionLink("13", "14", 0.90, StudyRef(7, 2021, "first look"))
    newer = VersionLink("13", "14", 0.97, StudyRef(8, 2022, "second look"))
    points = chained_version_index([older, newer])
    assert points[1].index == pytest.approx(97.0)
    assert points[1].link == newer
    assert points[1].other_links == (older,)


def test_within_a_year_it_prefers_the_study_measured_at_more_client_levels():
    curve = VersionLink("8.1", "8.3", 1.31, StudyRef(4, 2008, "by clients"), clients=(1, 10, 50, 100))
    single_point = VersionLink("8.1", "8.3", 2.02, StudyRef(5, 2008, "by transactions"), clients=(10,))
    points = chained_version_index([curve, single_point])
    assert points[1].link == curve
    assert points[1].index == pytest.approx(131.0)


def test_it_follows_the_nearest_newer_version_when_a_study_skips_one():
    links = [
        VersionLink("9.4", "9.6", 1.09, STUDY_2014),
        VersionLink("9.6", "11", 1.07, STUDY_2014),
        VersionLink("9.4", "11", 1.18, STUDY_2021),
    ]
    points = chained_version_index(links)
    assert [p.version for p in points] == ["9.4", "9.6", "11"]
    assert points[2].index == pytest.approx(100 * 1.09 * 1.07)


def test_it_gives_nothing_for_no_links():
    assert chained_version_index([]) == []


def test_a_study_links_its_consecutive_major_versions_by_the_geometric_mean_of_ratios():
    medians = {("13.4", 1): 437.2413, ("14.0", 1): 412.9373, ("13.4", 16): 4778.467, ("14.0", 16): 4668.131}
    [link] = study_links(STUDY_2021, medians)
    expected = ((412.9373 / 437.2413) * (4668.131 / 4778.467)) ** 0.5
    assert (link.older_version, link.newer_version, link.clients) == ("13", "14", (1, 16))
    assert link.ratio == pytest.approx(expected)


def test_a_study_link_uses_only_the_client_levels_both_versions_have():
    medians = {("13.4", 1): 100.0, ("14.0", 1): 110.0, ("14.0", 288): 5000.0}
    [link] = study_links(STUDY_2021, medians)
    assert link.clients == (1,)
    assert link.ratio == pytest.approx(1.1)


def test_relative_figures_are_their_own_index():
    medians = {("9.4", 256): 100.0, ("9.6", 256): 109.0, ("11", 256): 118.0}
    links = study_links(StudyRef(4, 2018, "EDB"), medians)
    assert [(link.older_version, link.newer_version) for link in links] == [("9.4", "9.6"), ("9.6", "11")]
    assert [p.index for p in chained_version_index(links)] == pytest.approx([100.0, 109.0, 118.0])


def test_a_scenario_trend_chains_the_links_of_every_study():
    points = [
        _point(2, 20, "14.0", 412.9373),
        _point(2, 19, "13.4", 437.2413),
        _point(1, 18, "12.6", 300.0),
        _point(1, 19, "13.2", 330.0),
    ]
    studies = {1: StudyRef(1, 2020, "12 vs 13"), 2: StudyRef(2, 2021, "13 vs 14")}
    trend = scenario_trend((5, "reference", "参照系"), studies, points)
    assert [p.version for p in trend.index] == ["12", "13", "14"]
    assert [p.index for p in trend.index] == pytest.approx([100.0, 110.0, 110.0 * 412.9373 / 437.2413])
    assert [ref.year for ref in trend.studies] == [2020, 2021]
    assert [(c.study_id, c.build_version) for c in trend.points] == [(1, "12.6"), (1, "13.2"), (2, "13.4"), (2, "14.0")]


def _point(study_id: int, build_id: int, version: str, median: float) -> Point:
    return Point(study_id, build_id, f"PG {version}", version, 5, "reference", 1, median, median, median, 1)
