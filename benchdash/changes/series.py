"""Every series benchdash has, as plain values in order, for change-point detection. Pure builders over the
points the studies and trends apps already compute; `queries.py` feeds them.

1. The official trend index, per scenario and segment: one value per version (the chained index).
2. A study's versions (a version matrix, a minor series), per scenario and client level: every counted run
   of each build, builds in version order (a published study: each figure once).
3. A host's repeated studies of one design (scenario, build, client level, duration, scale), in the order
   they finished: every counted run of each study.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchdash.changes.models import SeriesKind
from benchdash.inventory.models import version_sort_key
from benchdash.studies.results.compare import Point
from benchdash.trends.index import IndexPoint, ScenarioTrend


@dataclass(frozen=True)
class Side:
    """Where one side of a change was measured: a study and one of its builds (by id, or by version)."""

    study_id: int | None = None
    build_id: int | None = None
    build_version: str = ""


@dataclass(frozen=True)
class SeriesPoint:
    """One value under its label; `sides` (before, after) where the step from the point before is one study's
    own comparison (a trend link), else each point is its own side."""

    label: str
    value: float
    side: Side
    sides: tuple[Side, Side] | None = None


@dataclass(frozen=True)
class Series:
    key: str
    kind: str
    title: str
    official: bool
    points: tuple[SeriesPoint, ...]
    scenario_id: int | None = None
    clients: int | None = None

    @property
    def values(self) -> list[float]:
        return [point.value for point in self.points]

    @property
    def labels(self) -> list[str]:
        return [point.label for point in self.points]

    def sides_at(self, index: int) -> tuple[Side, Side]:
        """The sides of a change between point index - 1 and point index."""
        after = self.points[index]
        return after.sides or (self.points[index - 1].side, after.side)


def trend_series(trend: ScenarioTrend) -> list[Series]:
    """Step 1: one series per segment of the scenario's chained index (segments start afresh at 100)."""
    segments: dict[int, list[IndexPoint]] = defaultdict(list)
    for point in trend.index:
        segments[point.segment].append(point)
    return [
        Series(
            key=f"trend:{trend.scenario_slug}:{number}",
            kind=SeriesKind.TREND,
            title=f"{trend.scenario_name} · index" + (f" · segment {number}" if len(segments) > 1 else ""),
            official=True,
            points=tuple(_trend_point(point) for point in members),
            scenario_id=trend.scenario_id,
        )
        for number, members in segments.items()
        if len(members) >= 2
    ]


def _trend_point(point: IndexPoint) -> SeriesPoint:
    link = point.link
    if link is None:
        return SeriesPoint(point.version, point.index, Side())
    older = Side(link.study.study_id, build_version=link.older_build or link.older_version)
    newer = Side(link.study.study_id, build_version=link.newer_build or link.newer_version)
    return SeriesPoint(point.version, point.index, newer, sides=(newer, older) if point.backward else (older, newer))


def study_series(points: Iterable[Point], titles: Mapping[int, str], official: Mapping[int, bool]) -> list[Series]:
    """Step 2, for every study among `points` (titles and official flags by study id)."""
    groups: dict[tuple[int, int, str, int, str], list[Point]] = defaultdict(list)
    for point in points:
        groups[(point.study_id, point.scenario_id, point.scenario_slug, point.clients, point.conditions)].append(point)
    series = []
    for (study_id, scenario_id, slug, clients, conditions), members in sorted(groups.items()):
        if len({point.build_id for point in members}) < 2:
            continue
        members.sort(key=lambda point: (version_sort_key(point.build_version), point.build_name))
        labels = _build_labels(members)
        where = " · ".join(part for part in (slug, f"{clients} clients", conditions) if part)
        series.append(
            Series(
                key=f"study:{study_id}:{scenario_id}:{clients}:{conditions}",
                kind=SeriesKind.STUDY,
                title=f"{titles.get(study_id, study_id)} · {where}",
                official=official.get(study_id, False),
                points=_runs_of(members, [labels[point.build_id] for point in members]),
                scenario_id=scenario_id,
                clients=clients,
            )
        )
    return series


def _build_labels(points: Sequence[Point]) -> dict[int, str]:
    """A build's version, or its name where two builds of the study share a version (an A/A study)."""
    versions = [point.build_version for point in points]
    return {
        point.build_id: point.build_version if versions.count(point.build_version) == 1 else point.build_name
        for point in points
    }


def _runs_of(points: Sequence[Point], labels: Sequence[str]) -> tuple[SeriesPoint, ...]:
    """Every counted run of each point under its label (the figure itself where there are no runs)."""
    return tuple(
        SeriesPoint(label, value, Side(point.study_id, point.build_id, point.build_version))
        for point, label in zip(points, labels, strict=True)
        for value in balanced(point.runs or (point.median,))
    )


def balanced(runs: Sequence[float]) -> list[float]:
    """A point's runs smallest, largest, second smallest, second largest ...: its runs are stored ascending, and
    in that order every label's block would end higher than it starts, a step the detection would find inside it
    and at each boundary; alternating, every stretch of the block keeps near the block's mean."""
    ordered = sorted(runs)
    return [ordered[index // 2] if index % 2 == 0 else ordered[-(index // 2) - 1] for index in range(len(ordered))]


@dataclass(frozen=True)
class HostStudy:
    """A finished measured study, as step 3 groups it."""

    study_id: int
    host_name: str
    duration_s: int
    scale: int
    official: bool


def host_series(points: Iterable[Point], studies: Sequence[HostStudy]) -> list[Series]:
    """Step 3: `studies` in the order they finished; a design run in two studies at least makes a series."""
    order = {study.study_id: position for position, study in enumerate(studies)}
    by_id = {study.study_id: study for study in studies}
    groups: dict[tuple, list[Point]] = defaultdict(list)
    for point in points:
        study = by_id.get(point.study_id)
        if study is not None and not point.conditions:
            design = (study.host_name, point.scenario_id, point.scenario_slug, point.build_id, point.build_name)
            groups[(*design, point.clients, study.duration_s, study.scale)].append(point)
    series = []
    for (host, scenario_id, slug, build_id, build_name, clients, duration_s, scale), members in groups.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda point: order[point.study_id])
        series.append(
            Series(
                key=f"host:{host}:{scenario_id}:{build_id}:{clients}:{duration_s}:{scale}",
                kind=SeriesKind.HOST,
                title=f"{host} · {slug} · {build_name} · {clients} clients · {duration_s} s · scale {scale}",
                official=all(by_id[point.study_id].official for point in members),
                points=_runs_of(members, [f"#{point.study_id}" for point in members]),
                scenario_id=scenario_id,
                clients=clients,
            )
        )
    return series
