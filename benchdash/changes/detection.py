"""Change points in one series: where its level moved, how much, and how sure that is.

The only importer of Apache Otava (docs/CHANGES.md says why Otava): E-divisive means, split over sliding
windows, each candidate kept only if a two-sided Student's t-test between the segments on either side gives a
p-value below MAX_PVALUE and the segments' means differ by at least MIN_MAGNITUDE (Fleming et al., "Hunter",
ICPE 2023). Pure: plain values in, plain changes out.

Two guards keep short series quiet. A series shorter than WINDOW is searched in one piece, every split tested, and
the best split's p-value is then no fair p-value: at MAX_PVALUE 17 to 19 of 1,000 noise-only series of 14 points at
1.5% noise got a change, anywhere along them; such a series needs SHORT_MAX_PVALUE (1 in 1,000 left, a 5% step still
found in 3 of 4). And no segment may be shorter than MIN_SEGMENT values: Otava's t-test gives a lone value no spread,
so one outlying value at a series' end passed for a change; a change that leaves a shorter segment is dropped and
those left are tested again on their merged segments. A step at the last version shows once a second value stands
after it (a version's own runs count). docs/STATISTICS.md; bench/change_points.py measures both.

A series may repeat a label: the runs of one version are consecutive values under the same label, so the test
sees the run-to-run spread. A change found inside one label's runs is no change between versions and is dropped.

Otava is imported where it is used: with scipy it takes most of a second to import, which every process that loads
the apps (a worker, beat, each manage.py command) would otherwise pay at its start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_PVALUE = 0.001
MIN_MAGNITUDE = 0.02
WINDOW = 50
MIN_SEGMENT = 2
SHORT_MAX_PVALUE = 0.00005


@dataclass(frozen=True)
class Change:
    """A move of the series' level between `before_label` and `after_label` (adjacent labels).

    `size` is mean after / mean before - 1 (+0.08: 8% higher); `confidence` is 1 - the t-test's p-value.
    """

    index: int
    before_label: str
    after_label: str
    mean_before: float
    mean_after: float
    size: float
    pvalue: float

    @property
    def confidence(self) -> float:
        return 1.0 - self.pvalue


def find_changes(
    values: Sequence[float],
    labels: Sequence[str],
    *,
    max_pvalue: float | None = None,
    min_magnitude: float = MIN_MAGNITUDE,
    min_segment: int = MIN_SEGMENT,
) -> list[Change]:
    """The change points of `values` (each under the label at the same index), in series order; `max_pvalue` by
    default MAX_PVALUE, SHORT_MAX_PVALUE for a series shorter than WINDOW."""
    if len(values) != len(labels):
        raise ValueError("one label per value")
    if len(values) < 3:
        return []
    from otava.analysis import compute_change_points

    series = [float(value) for value in values]
    if max_pvalue is None:
        max_pvalue = MAX_PVALUE if len(series) >= WINDOW else SHORT_MAX_PVALUE
    found, _weak = compute_change_points(series, window_len=WINDOW, max_pvalue=max_pvalue, min_magnitude=min_magnitude)
    found = _long_segments_only(found, series, max_pvalue, min_magnitude, min_segment)
    changes = [_change(point, labels) for point in found]
    return [change for change in changes if change.before_label != change.after_label]


def _long_segments_only(found: list, series: list[float], max_pvalue: float, min_magnitude: float, min_segment: int):
    """Otava's changes less those bounding a segment shorter than `min_segment`; the rest tested again."""
    from otava.analysis import TTestSignificanceTester, merge

    bounds = [0, *(int(point.index) for point in found), len(series)]
    kept = [
        point
        for number, point in enumerate(found)
        if min(bounds[number + 1] - bounds[number], bounds[number + 2] - bounds[number + 1]) >= min_segment
    ]
    if len(kept) == len(found):
        return found
    tester = TTestSignificanceTester(max_pvalue)
    intervals = tester.get_intervals(kept)
    retested = [tester.change_point(point.to_candidate(), series, intervals) for point in kept]
    return merge(retested, series, max_pvalue, min_magnitude)


def _change(point, labels: Sequence[str]) -> Change:
    index = int(point.index)
    stats = point.stats
    return Change(
        index=index,
        before_label=labels[index - 1],
        after_label=labels[index],
        mean_before=float(stats.mean_1),
        mean_after=float(stats.mean_2),
        size=float(stats.forward_rel_change()),
        pvalue=float(stats.pvalue),
    )
