"""Which calibration speaks for a design on a host (issue 42, point 3): the preview and the official-study gate ask.

Close enough means: the same scenario and client count (what a cell measures), a duration within a factor of
DURATION_FACTOR (a run's length moves its spread), the same threshold (the verdict's rule) and design kind
(sequential or duet); on the host itself, else on a host of its kind (inventory/host_kind.py). The newest wins.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from benchdash.inventory.host_kind import host_kind
from benchdash.inventory.models import Host
from benchdash.studies.models import DUETS, Calibration, DesignKind

DURATION_FACTOR = 1.5
THRESHOLD_TOLERANCE = 1e-9


@dataclass(frozen=True)
class CalibrationMatch:
    calibration: Calibration
    own_host: bool  # False: measured on another host of the same kind


def design_kind_of(arrangement: str | None) -> DesignKind:
    """The kind of design a study's arrangement runs: an A/A duet and a duet are both duets."""
    return DesignKind.DUET if arrangement in DUETS else DesignKind.SEQUENTIAL


def matching_calibration(
    host: Host | None,
    cells: Iterable[tuple[int, int]],
    *,
    duration_s: int,
    threshold: float,
    design_kind: str = DesignKind.SEQUENTIAL,
) -> CalibrationMatch | None:
    """The newest measured calibration of one of the cells (scenario id, clients) that is close enough (the module's
    rule): the host's own first, then its kind's."""
    if host is None:
        return None
    wanted = set(cells)
    low, high = duration_s / DURATION_FACTOR, duration_s * DURATION_FACTOR
    measured = Calibration.objects.measured().filter(
        design_kind=design_kind,
        duration_s__gte=low,
        duration_s__lte=high,
        threshold__gte=threshold - THRESHOLD_TOLERANCE,
        threshold__lte=threshold + THRESHOLD_TOLERANCE,
    )
    candidates = [one for one in measured.select_related("host") if (one.scenario_id, one.clients) in wanted]
    own = next((one for one in candidates if one.host_id == host.pk), None)
    if own is not None:
        return CalibrationMatch(own, True)
    kind = host_kind(host)
    kindred = next((one for one in candidates if kind and one.host_kind == dataclasses.asdict(kind)), None)
    return CalibrationMatch(kindred, False) if kindred else None
