"""What the trends page shows per scenario: the index chart and table, and each study's TPS-vs-clients chart."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.utils.functional import Promise

from benchdash.inventory.events import EventMark, Place, event_marks, events_touching
from benchdash.studies.environment import differing_labels, study_fingerprints
from benchdash.studies.event_places import study_events, study_places, version_places
from benchdash.studies.models import Study
from benchdash.studies.results.compare import Point
from benchdash.studies.results.matrix import MatrixPoint, matrix_line
from benchdash.trends.change_marks import change_marks
from benchdash.trends.charts import MatrixTrace, index_figure, study_curves_figure
from benchdash.trends.index import INDEX_START, IndexPoint, LinkVerdict, ScenarioTrend, link_verdicts


@dataclass(frozen=True)
class IndexRow:
    """A row of the index table; `gap_from` names the version before a break: no official study measured
    both it and this version (nor any other pair across the break). `environment_differs` names what differs
    between the environment of the study whose link reaches this version and that of the link before it, when
    another study's (studies/environment.py): the chain multiplies ratios measured in different conditions."""

    point: IndexPoint
    gap_from: str | None = None
    environment_differs: list[str | Promise] = field(default_factory=list)


@dataclass(frozen=True)
class StudyChart:
    """One study's TPS-vs-clients chart on the trends page."""

    study: Study
    figure_id: str
    figure: dict


@dataclass(frozen=True)
class MatrixLine:
    """An official version matrix (a measured study of MATRIX_MAJORS majors or more): its own line, every link from the
    one study and host, drawn beside the chained index from the index's value at its oldest major (100 when the
    index does not reach that major)."""

    study: Study
    points: list[MatrixPoint]
    anchor: float

    @property
    def trace(self) -> MatrixTrace:
        values = [(point.version, point.index * self.anchor / INDEX_START) for point in self.points]
        return MatrixTrace(f"{self.study.year} {self.study.title}", values)


@dataclass(frozen=True)
class TrendSection:
    trend: ScenarioTrend
    figure_id: str
    figure: dict
    rows: list[IndexRow]
    studies: list[StudyChart] = field(default_factory=list)
    links: list[LinkVerdict] = field(default_factory=list)
    matrices: list[MatrixLine] = field(default_factory=list)


def trend_sections(trends: list[ScenarioTrend], studies: Mapping[int, Study]) -> list[TrendSection]:
    """One section per scenario with figures; `studies` maps study id to the Study row (for kind and source)."""
    marks, places = event_marks(), study_places(studies.values())
    return [_section(trend, studies, marks, places) for trend in trends]


def index_rows(points: list[IndexPoint]) -> list[IndexRow]:
    studies = {point.link.study.study_id for point in points if point.link}
    prints = study_fingerprints(studies)
    rows = []
    for before, point in zip([None, *points], points, strict=False):
        differs = _environment_change(before, point, prints)
        rows.append(IndexRow(point, point.gap_from if point.starts_segment else None, differs))
    return rows


def _environment_change(
    before: IndexPoint | None, point: IndexPoint, prints: Mapping[int, dict[str, str]]
) -> list[str | Promise]:
    """What differs between the studies of two chained links (none when one study made both or one is unknown)."""
    if before is None or before.link is None or point.link is None or point.starts_segment:
        return []
    earlier, later = before.link.study.study_id, point.link.study.study_id
    if earlier == later or earlier not in prints or later not in prints:
        return []
    return differing_labels(prints[earlier], prints[later])


def _section(
    trend: ScenarioTrend, studies: Mapping[int, Study], marks: Sequence[EventMark], places: Mapping[int, Place]
) -> TrendSection:
    by_study = defaultdict(list)
    for point in trend.points:
        by_study[point.study_id].append(point)
    # Newest study first: that is the one a reader looks for.
    charts = [
        _study_chart(trend, studies[ref.study_id], by_study[ref.study_id], marks, places[ref.study_id])
        for ref in reversed(trend.studies)
        if ref.study_id in studies
    ]
    matrices = _matrix_lines(trend, studies, by_study)
    versions = {point.version for point in trend.index} | {p.version for line in matrices for p in line.points}
    hosts = frozenset().union(*(places[ref.study_id].host_ids for ref in trend.studies if ref.study_id in places))
    return TrendSection(
        trend=trend,
        figure_id=f"index-{trend.scenario_id}",
        figure=index_figure(
            trend.index,
            matrices=[matrix.trace for matrix in matrices],
            changes=change_marks(trend.scenario_id),
            events=events_touching(version_places(versions, hosts), marks),
        ),
        rows=index_rows(trend.index),
        studies=charts,
        links=link_verdicts(trend.links, trend.index),
        matrices=matrices,
    )


def _matrix_lines(
    trend: ScenarioTrend, studies: Mapping[int, Study], by_study: Mapping[int, list[Point]]
) -> list[MatrixLine]:
    indexed = {point.version: point.index for point in trend.index}
    lines = []
    # Measured matrices only: a published study of three versions keeps to the index, as its source drew it.
    measured = [ref for ref in trend.studies if ref.study_id in studies and not studies[ref.study_id].is_published]
    for ref in measured:
        points = matrix_line(by_study[ref.study_id])
        if points:
            lines.append(MatrixLine(studies[ref.study_id], points, indexed.get(points[0].version, INDEX_START)))
    return lines


def _study_chart(
    trend: ScenarioTrend, study: Study, points: list[Point], marks: Sequence[EventMark], place: Place
) -> StudyChart:
    events = study_events(study, marks, place)
    figure = study_curves_figure(points, statistic=study.statistic, events=events)
    return StudyChart(study=study, figure_id=f"curves-{trend.scenario_id}-{study.pk}", figure=figure)
