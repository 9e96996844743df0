"""Change points in one series: where its level moved, how much, and how sure that is.

The only importer of Apache Otava (docs/CHANGES.md says why Otava): E-divisive means, split over sliding
windows, each candidate kept only if a two-sided Student's t-test between the segments on either side gives a
p-value below MAX_PVALUE and the segments' means differ by at least MIN_MAGNITUDE (Fleming et al., "Hunter",
ICPE 2023). Pure: plain values in, plain changes out.

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
    max_pvalue: float = MAX_PVALUE,
    min_magnitude: float = MIN_MAGNITUDE,
) -> list[Change]:
    """The change points of `values` (each under the label at the same index), in series order."""
    if len(values) != len(labels):
        raise ValueError("one label per value")
    if len(values) < 3:
        return []
    from otava.analysis import compute_change_points

    found, _weak = compute_change_points(
        [float(value) for value in values], window_len=WINDOW, max_pvalue=max_pvalue, min_magnitude=min_magnitude
    )
    changes = [_change(point, labels) for point in found]
    return [change for change in changes if change.before_label != change.after_label]


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
