"""CSV of the trends: the chained index of every scenario, then every study's points.

The header is a stable interface (docs/CSV.md); files are written with the studies' CSV rules
(benchdash.studies.csv_export: BOM, formula-safe cells).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from benchdash.studies.results.compare import Point
from benchdash.trends.index import IndexPoint, ScenarioTrend, StudyRef

TRENDS_HEADER = (
    "kind",
    "scenario",
    "segment",
    "version",
    "index",
    "link_ratio",
    "study_id",
    "year",
    "study",
    "build",
    "build_version",
    "clients",
    "median_tps",
    "statistic",
    "conditions",
    "year_inferred",
    "link_older_version",
    "link_newer_version",
    "index_low",
    "index_high",
)


def trends_rows(trends: Iterable[ScenarioTrend]) -> Iterator[tuple[Any, ...]]:
    """The chained index of every scenario (kind "index"), then every study's medians (kind "point")."""
    trends = list(trends)
    for trend in trends:
        yield from (_index_row(trend.scenario_slug, point) for point in trend.index)
    for trend in trends:
        studies = {ref.study_id: ref for ref in trend.studies}
        yield from (_point_row(trend.scenario_slug, studies[point.study_id], point) for point in trend.points)


def _index_row(scenario_slug: str, point: IndexPoint) -> tuple[Any, ...]:
    link = point.link
    interval = point.interval or ("", "")
    if link is None:
        return ("index", scenario_slug, point.segment, point.version, point.index, *[""] * 13, *interval)
    study = (link.study.study_id, link.study.year, link.study.title)
    empty_point_cells = ("", "", "", "")
    link_cells = (link.study.statistic, "", link.study.year_inferred, *link.pair)
    return (
        "index",
        scenario_slug,
        point.segment,
        point.version,
        point.index,
        link.ratio,
        *study,
        *empty_point_cells,
        *link_cells,
        *interval,
    )


def _point_row(scenario_slug: str, study: StudyRef, point: Point) -> tuple[Any, ...]:
    study_cells = (study.study_id, study.year, study.title)
    point_cells = (point.build_name, point.build_version, point.clients, point.median)
    return (
        "point",
        scenario_slug,
        *("", "", "", ""),
        *study_cells,
        *point_cells,
        study.statistic,
        point.conditions,
        study.year_inferred,
        *("", "", "", ""),
    )
