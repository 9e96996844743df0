"""How far repeated measurements spread: one definition for a study cell's runs and the noise check's micro-runs."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def coefficient_of_variation(runs: Sequence[float]) -> float | None:
    """Sample standard deviation / mean of the runs; None with fewer than two runs or a zero mean."""
    if len(runs) < 2:
        return None
    mean = statistics.fmean(runs)
    return statistics.stdev(runs) / mean if mean else None
