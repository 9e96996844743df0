"""What the trends page shows per scenario: the index chart and table, and each study's TPS-vs-clients chart."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from benchdash.studies.models import Study
from benchdash.studies.results import Point
from benchdash.trends.charts import index_figure, study_curves_figure
from benchdash.trends.index import IndexPoint, LinkVerdict, ScenarioTrend, link_verdicts


@dataclass(frozen=True)
class IndexRow:
    """A row of the index table; `gap_from` names the version before a break: no official study measured
    both it and this version (nor any other pair across the break)."""

    point: IndexPoint
    gap_from: str | None = None


@dataclass(frozen=True)
class StudyChart:
    """One study's TPS-vs-clients chart on the trends page."""

    study: Study
    figure_id: str
    figure: dict


@dataclass(frozen=True)
class TrendSection:
    trend: ScenarioTrend
    figure_id: str
    figure: dict
    rows: list[IndexRow]
    studies: list[StudyChart] = field(default_factory=list)
    links: list[LinkVerdict] = field(default_factory=list)


def trend_sections(trends: list[ScenarioTrend], studies: Mapping[int, Study]) -> list[TrendSection]:
    """One section per scenario with figures; `studies` maps study id to the Study row (for kind and source)."""
    return [_section(trend, studies) for trend in trends]


def index_rows(points: list[IndexPoint]) -> list[IndexRow]:
    return [IndexRow(point=point, gap_from=point.gap_from if point.starts_segment else None) for point in points]


def _section(trend: ScenarioTrend, studies: Mapping[int, Study]) -> TrendSection:
    by_study = defaultdict(list)
    for point in trend.points:
        by_study[point.study_id].append(point)
    # Newest study first: that is the one a reader looks for.
    charts = [
        _study_chart(trend, studies[ref.study_id], by_study[ref.study_id])
        for ref in reversed(trend.studies)
        if ref.study_id in studies
    ]
    return TrendSection(
        trend=trend,
        figure_id=f"index-{trend.scenario_id}",
        figure=index_figure(trend.index),
        rows=index_rows(trend.index),
        studies=charts,
        links=link_verdicts(trend.links, trend.index),
    )


def _study_chart(trend: ScenarioTrend, study: Study, points: list[Point]) -> StudyChart:
    figure = study_curves_figure(points, statistic=study.statistic)
    return StudyChart(study=study, figure_id=f"curves-{trend.scenario_id}-{study.pk}", figure=figure)
