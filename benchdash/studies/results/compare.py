"""A point as plain data, and its comparison with the baseline build: the ratio, with its interval and verdict (the
arithmetic is in uncertainty.py).

Pure functions over plain data. The figures of a point (median, min, max, n, runs) are computed once, by SQL
aggregation in `store.py`, kept in StudyPoint and read back as Point by `queries.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from benchdash.inventory.models import version_sort_key
from benchdash.studies.models import Statistic
from benchdash.studies.results.mean import mean_ratio_interval
from benchdash.studies.results.pooled import HostSpread, Runs, cell_interval
from benchdash.studies.results.sequential import Design
from benchdash.studies.results.uncertainty import DEFAULT_THRESHOLD, RatioInterval, Verdict, verdict
from workers.spread import coefficient_of_variation

FIXED = Design()
PointKey = tuple[int, int, int, int, str]  # study_id, build_id, scenario_id, clients, conditions
# What a real benchmark can produce: from one transaction in 1000 s to 100 million a second (pgbench on the
# largest machines reaches a few million). The importer refuses a figure outside; a stored one outside (a row
# written around benchdash) is shown but never divided by or compared, so that no ratio overflows.
TPS_BOUNDS = (0.001, 1e8)


def plausible_tps(value: float | None) -> bool:
    """Whether a figure is one a benchmark could produce (TPS_BOUNDS), and so may enter a ratio."""
    return value is not None and TPS_BOUNDS[0] <= value < TPS_BOUNDS[1]


@dataclass(frozen=True)
class Point:
    """One build x scenario x clients (x conditions) of a study: the median, min, max and n of its counted trials.

    The plain-data form of a StudyPoint row, for pure functions (tables, charts, the trends index). For a
    published figure `median` is the figure as published (its study says which statistic), min and max
    are None (unknown), and n is the runs its source says stand behind it, or None.

    `ratio` is figure / the baseline build's figure at the same scenario, clients and conditions (the
    seeds' 前バージョン比: 412.9373 / 437.2413 = 0.944, shown as 94%); None for the baseline itself or when
    the baseline has no figure there. `ranges_disjoint` says the min..max ranges of this build and of the
    baseline do not overlap (the difference is larger than the run-to-run noise); None when a range is
    unknown or rests on one run, so it cannot tell.

    `runs` are the TPS of its counted runs, ascending (none for a published figure). `interval` is the
    interval of `ratio` from the runs of both builds, and `verdict` what it says at the study's threshold
    (studies/results/uncertainty.py): both None where there is no ratio or no runs to compute them from.

    `mean` is the mean of its counted runs (None for a published figure), `statistic` its study's: `figure`, the
    headline figure that tables, charts and ratios use, is the mean in a study of means, else the median.
    """

    study_id: int
    build_id: int
    build_name: str
    build_version: str
    scenario_id: int
    scenario_slug: str
    clients: int
    median: float
    minimum: float | None
    maximum: float | None
    n: int | None
    ratio: float | None = None
    ranges_disjoint: bool | None = None
    conditions: str = ""
    runs: tuple[float, ...] = ()
    rounds: tuple[int | None, ...] = ()
    interval: RatioInterval | None = None
    verdict: Verdict | None = None
    # In a variant study (results/lines.py) `build_id` holds the variant's id and `variant_label` names it.
    variant_id: int | None = None
    variant_label: str = ""
    mean: float | None = None
    statistic: str = Statistic.MEDIAN

    @property
    def figure(self) -> float:
        """The figure the study reports: the mean of the runs in a study of means, else the median (for a published
        figure, the figure as published)."""
        return self.mean if self.statistic == Statistic.MEAN and self.mean is not None else self.median

    @property
    def label(self) -> str:
        """What a chart's line and a table's column are called: the variant's label, else the build's name."""
        return self.variant_label or self.build_name

    @property
    def key(self) -> PointKey:
        return (self.study_id, self.build_id, self.scenario_id, self.clients, self.conditions)

    @property
    def level(self) -> tuple[int, str]:
        """Where on the x axis: the client count and, for a published figure, its conditions."""
        return (self.clients, self.conditions)

    @property
    def ratio_percent(self) -> int | None:
        """The ratio as the seeds print it: 0.944 -> 94."""
        return None if self.ratio is None else round(self.ratio * 100)

    @property
    def cv(self) -> float | None:
        """The run-to-run spread: the coefficient of variation of its runs (None with fewer than two)."""
        return coefficient_of_variation(self.runs)


@dataclass(frozen=True)
class Comparing:
    """How a study compares two of its points: at its threshold, by its design's looks, with its DB host's spread of
    each scenario and clients where `spreads` has a usable one; with `peaks` (a study of peak figures) a peak is
    compared with the other's peak under the same conditions, whatever client count each was at."""

    peaks: bool = False
    threshold: float = DEFAULT_THRESHOLD
    design: Design = FIXED
    spreads: Mapping[tuple[int, int], HostSpread] = field(default_factory=dict)

    def place(self, point: Point) -> tuple[int, object]:
        """Where two lines' points meet: the same scenario and level (clients and conditions), or for peaks the
        same scenario and conditions."""
        return (point.scenario_id, point.conditions if self.peaks else point.level)

    def pair(self, point: Point, reference: Point | None) -> Point:
        """The point with `ratio`, `ranges_disjoint`, `interval` and `verdict` filled against the reference point."""
        return _compared(point, reference, self.threshold, self.design, self.spreads)


def compare_with_baseline(
    points: Iterable[Point], baseline_build_id: int | None, comparing: Comparing | None = None
) -> list[Point]:
    """Fill `ratio`, `ranges_disjoint`, `interval` and `verdict` from the baseline build's point at the same place
    (Comparing.place). Each interval is drawn at the confidence of the design's look at the point's runs
    (sequential.py), pooled with the host's spread of its scenario and clients where the study has a usable one
    (pooled.py), else by ranks."""
    points = list(points)
    how = comparing or Comparing()
    baselines = {how.place(p): p for p in points if p.build_id == baseline_build_id}
    compared = [how.pair(point, baselines.get(how.place(point))) for point in points]
    return sorted(compared, key=_display_order)


def ranges_disjoint(first: tuple[float, float], second: tuple[float, float]) -> bool:
    """True when the (min, max) ranges do not overlap; touching ranges overlap."""
    return first[1] < second[0] or second[1] < first[0]


def _known_range(point: Point) -> tuple[float, float] | None:
    """The point's min..max when it rests on more than one run; None when it cannot say anything."""
    if point.minimum is None or point.maximum is None or (point.n or 0) < 2:
        return None
    return (point.minimum, point.maximum)


def _compared(
    point: Point,
    baseline: Point | None,
    threshold: float,
    design: Design,
    spreads: Mapping[tuple[int, int], HostSpread],
) -> Point:
    comparable = baseline is not None and plausible_tps(baseline.figure) and plausible_tps(point.figure)
    if baseline is None or not comparable or baseline.build_id == point.build_id:
        return replace(point, ratio=None, ranges_disjoint=None, interval=None, verdict=None)
    own, baseline_range = _known_range(point), _known_range(baseline)
    disjoint = None if own is None or baseline_range is None else ranges_disjoint(own, baseline_range)
    spread = spreads.get((point.scenario_id, point.clients))
    cell, baseline_cell = Runs(point.runs, point.rounds), Runs(baseline.runs, baseline.rounds)
    confidence = design.confidence(len(point.runs))
    if point.statistic == Statistic.MEAN:
        interval = mean_ratio_interval(cell, baseline_cell, confidence)
    else:
        interval = cell_interval(cell, baseline_cell, spread, confidence)
    said = verdict(interval, threshold) if point.runs and baseline.runs else None
    return replace(
        point, ratio=point.figure / baseline.figure, ranges_disjoint=disjoint, interval=interval, verdict=said
    )


def conditions_order(conditions: str) -> tuple[object, ...]:
    """Natural order of conditions: '-t 10' < '-t 100' < '-t 500' < '-t 1000'."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", conditions))


def _display_order(point: Point) -> tuple[str, int, tuple[object, ...], int, str]:
    return (
        point.scenario_slug,
        point.clients,
        conditions_order(point.conditions),
        version_sort_key(point.build_version),
        point.build_name,
    )
