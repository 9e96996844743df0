"""How far repeated measurements spread: one definition for a study cell's runs and the noise check's micro-runs."""

from __future__ import annotations

import math
from collections.abc import Sequence


def coefficient_of_variation(runs: Sequence[float]) -> float | None:
    """Sample standard deviation / mean of the runs; None with fewer than two runs or a zero mean."""
    if len(runs) < 2:
        return None
    mean = math.fsum(runs) / len(runs)
    if not mean:
        return None
    # statistics.stdev computes in exact fractions, slow on a cell of many runs and a page of many cells; fsum is as
    # exact for data like these (TPS, microseconds) and much faster (docs/BENCHMARKS.md).
    return math.sqrt(math.fsum((run - mean) ** 2 for run in runs) / (len(runs) - 1)) / mean
