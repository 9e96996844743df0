"""The numbers behind a study page: medians, ranges and the ratio to the baseline build.

Pure functions over plain data; `queries.py` computes the same figures with SQL aggregation.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from benchdash.inventory.models import version_sort_key

PointKey = tuple[int, int, int]  # build_id, scenario_id, clients


@dataclass(frozen=True)
class TpsRow:
    """One finished (succeeded) trial, reduced to what the summary needs."""

    build_id: int
    build_name: str
    build_version: str
    scenario_id: int
    scenario_slug: str
    clients: int
    tps: float


@dataclass(frozen=True)
class SummaryPoint:
    """One build x scenario x clients cell of a study.

    `ratio` is median / the baseline build's median at the same scenario and clients (the seeds'
    前バージョン比: 412.9373 / 437.2413 = 0.944, shown as 94%); None for the baseline itself or when the
    baseline has no figure there. `ranges_disjoint` says the min..max ranges of this build and of the
    baseline do not overlap: the difference is larger than the run-to-run noise.
    """

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
        return (self.build_id, self.scenario_id, self.clients)

    @property
    def ratio_percent(self) -> int | None:
        """The ratio as the seeds print it: 0.944 -> 94."""
        return None if self.ratio is None else round(self.ratio * 100)


def summarize(rows: Iterable[TpsRow], baseline_build_id: int | None) -> list[SummaryPoint]:
    """Median, min, max and n per build x scenario x clients, then the comparison with the baseline.

    Rows must be finished trials only; the result is ordered by scenario, clients, build version.
    """
    groups: dict[PointKey, list[TpsRow]] = defaultdict(list)
    for row in rows:
        groups[(row.build_id, row.scenario_id, row.clients)].append(row)
    points = [_point(group) for group in groups.values()]
    return compare_with_baseline(points, baseline_build_id)


def compare_with_baseline(points: Iterable[SummaryPoint], baseline_build_id: int | None) -> list[SummaryPoint]:
    """Fill `ratio` and `ranges_disjoint` from the baseline build's point at the same scenario and clients."""
    points = list(points)
    baselines = {(p.scenario_id, p.clients): p for p in points if p.build_id == baseline_build_id}
    compared = [_compared(point, baselines.get((point.scenario_id, point.clients))) for point in points]
    return sorted(compared, key=_display_order)


def ranges_disjoint(first: tuple[float, float], second: tuple[float, float]) -> bool:
    """True when the (min, max) ranges do not overlap; touching ranges overlap."""
    return first[1] < second[0] or second[1] < first[0]


def _point(group: list[TpsRow]) -> SummaryPoint:
    first = group[0]
    values = [row.tps for row in group]
    return SummaryPoint(
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


def _compared(point: SummaryPoint, baseline: SummaryPoint | None) -> SummaryPoint:
    if baseline is None or baseline.build_id == point.build_id or not baseline.median:
        return replace(point, ratio=None, ranges_disjoint=False)
    disjoint = ranges_disjoint((point.minimum, point.maximum), (baseline.minimum, baseline.maximum))
    return replace(point, ratio=point.median / baseline.median, ranges_disjoint=disjoint)


def _display_order(point: SummaryPoint) -> tuple[str, int, int, str]:
    return (point.scenario_slug, point.clients, version_sort_key(point.build_version), point.build_name)
