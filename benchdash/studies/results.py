"""The numbers behind a study page: points (medians, ranges) and the ratio to the baseline build.

Pure functions over plain data; `points.py` computes the same figures with SQL aggregation and keeps
them in StudyPoint, which `queries.py` reads back as Point.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from benchdash.inventory.models import version_sort_key

PointKey = tuple[int, int, int, int]  # study_id, build_id, scenario_id, clients


@dataclass(frozen=True)
class TpsRow:
    """One counted trial (succeeded, with a TPS), reduced to what its point needs."""

    study_id: int
    build_id: int
    build_name: str
    build_version: str
    scenario_id: int
    scenario_slug: str
    clients: int
    tps: float


@dataclass(frozen=True)
class Point:
    """One build x scenario x clients of a study: the median, min, max and n of its counted trials.

    The plain-data form of a StudyPoint row, for pure functions (tables, charts, the trends index).

    `ratio` is median / the baseline build's median at the same scenario and clients (the seeds'
    前バージョン比: 412.9373 / 437.2413 = 0.944, shown as 94%); None for the baseline itself or when the
    baseline has no figure there. `ranges_disjoint` says the min..max ranges of this build and of the
    baseline do not overlap: the difference is larger than the run-to-run noise.
    """

    study_id: int
    build_id: int
    build_name: str
    build_version: str
    scenario_id: int
    scenario_slug: str
    clients: int
    median: float
    minimum: float
    maximum: float
    n: int
    ratio: float | None = None
    ranges_disjoint: bool = False

    @property
    def key(self) -> PointKey:
        return (self.study_id, self.build_id, self.scenario_id, self.clients)

    @property
    def ratio_percent(self) -> int | None:
        """The ratio as the seeds print it: 0.944 -> 94."""
        return None if self.ratio is None else round(self.ratio * 100)


def summarize(rows: Iterable[TpsRow], baseline_build_id: int | None) -> list[Point]:
    """Median, min, max and n per build x scenario x clients, then the comparison with the baseline.

    Rows must be counted trials only; the result is ordered by scenario, clients, build version.
    """
    groups: dict[PointKey, list[TpsRow]] = defaultdict(list)
    for row in rows:
        groups[(row.study_id, row.build_id, row.scenario_id, row.clients)].append(row)
    points = [_point(group) for group in groups.values()]
    return compare_with_baseline(points, baseline_build_id)


def compare_with_baseline(points: Iterable[Point], baseline_build_id: int | None) -> list[Point]:
    """Fill `ratio` and `ranges_disjoint` from the baseline build's point at the same scenario and clients."""
    points = list(points)
    baselines = {(p.scenario_id, p.clients): p for p in points if p.build_id == baseline_build_id}
    compared = [_compared(point, baselines.get((point.scenario_id, point.clients))) for point in points]
    return sorted(compared, key=_display_order)


def ranges_disjoint(first: tuple[float, float], second: tuple[float, float]) -> bool:
    """True when the (min, max) ranges do not overlap; touching ranges overlap."""
    return first[1] < second[0] or second[1] < first[0]


def _point(group: list[TpsRow]) -> Point:
    first = group[0]
    values = [row.tps for row in group]
    return Point(
        study_id=first.study_id,
        build_id=first.build_id,
        build_name=first.build_name,
        build_version=first.build_version,
        scenario_id=first.scenario_id,
        scenario_slug=first.scenario_slug,
        clients=first.clients,
        median=statistics.median(values),
        minimum=min(values),
        maximum=max(values),
        n=len(values),
    )


def _compared(point: Point, baseline: Point | None) -> Point:
    if baseline is None or baseline.build_id == point.build_id or not baseline.median:
        return replace(point, ratio=None, ranges_disjoint=False)
    disjoint = ranges_disjoint((point.minimum, point.maximum), (baseline.minimum, baseline.maximum))
    return replace(point, ratio=point.median / baseline.median, ranges_disjoint=disjoint)


def _display_order(point: Point) -> tuple[str, int, int, str]:
    return (point.scenario_slug, point.clients, version_sort_key(point.build_version), point.build_name)
