"""Group-sequential looks: the confidence of a cell's interval at each look of a study with adaptive repetitions.

A study with P planned runs and a cap of N looks at a cell after P runs, then after every extra round, up to N.
Each look is one more chance of a false verdict, so the study's 5% is spent over the looks by the Lan-DeMets
spending function that imitates O'Brien and Fleming's boundaries: by the fraction t = runs / N of the cap,
alpha(t) = 2 - 2 Phi(z / sqrt(t)), z the normal quantile of 1 - alpha / 2. Early looks spend almost nothing
(their intervals are wide), the last keeps nearly the whole 5%.

The boundary c_k of each look is exact for a statistic that moves as a Brownian motion in the information (a mean
difference with known spread): the probability of crossing first at look k, computed by recursive numerical
integration over the paths that did not cross before (Armitage, McPherson and Rowe; Jennison and Turnbull,
*Group Sequential Methods*, ch. 19), equals alpha(t_k) - alpha(t_k-1). A cell's interval at look k is drawn at
the confidence 1 - 2 (1 - Phi(c_k)): the repeated confidence intervals of Jennison and Turnbull, which all hold
the truth together with 95%, whichever look a study stops on.

scipy and numpy are imported inside the functions that use them: their imports are heavy (docs/BENCHMARKS.md), which
every process that loads the models (a worker, beat, each manage.py command) would otherwise pay at its start.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from benchdash.studies.results.uncertainty import CONFIDENCE

if TYPE_CHECKING:
    import numpy as np

# Points of the integration grid over the values that have not crossed yet: boundaries exact to about 1e-4.
GRID_POINTS = 401
# A look that spends (almost) nothing has an infinite boundary: this one spends 1e-15, the same for any use.
MAX_BOUNDARY = 8.0


@dataclass(frozen=True)
class Design:
    """How many runs a study plans per cell, and its adaptive cap (None: a fixed design, one look)."""

    planned: int = 0
    cap: int | None = None

    @property
    def looks(self) -> list[int]:
        """The run counts at which a cell is looked at: the planned runs, then each extra round up to the cap."""
        if not self.cap or self.cap <= self.planned:
            return [max(self.planned, 1)]
        return list(range(max(self.planned, 1), self.cap + 1))

    def confidence(self, runs: int) -> float:
        """The confidence of a cell's interval after `runs` runs: 95% in a fixed design; in an adaptive one, the
        look's share of the spent 5% (runs outside the looks take the nearest look)."""
        looks = self.looks
        if len(looks) == 1:
            return CONFIDENCE
        look = min(max(runs, looks[0]), looks[-1]) - looks[0]
        return look_confidences(tuple(runs / looks[-1] for runs in looks))[look]

    @property
    def final_confidence(self) -> float:
        """The confidence at the last look (the cap): the one a study's page states."""
        return self.confidence(self.looks[-1])


def spent(fraction: float, alpha: float = 1 - CONFIDENCE) -> float:
    """The share of alpha spent by the information fraction t: 2 - 2 Phi(z_(1 - alpha/2) / sqrt(t))."""
    from scipy import stats

    return float(2 - 2 * stats.norm.cdf(stats.norm.ppf(1 - alpha / 2) / math.sqrt(fraction)))


@lru_cache(maxsize=256)
def look_confidences(fractions: tuple[float, ...], alpha: float = 1 - CONFIDENCE) -> list[float]:
    """The confidence of the interval at each look, for looks at these information fractions (ascending, the
    last 1): 1 - 2 (1 - Phi(c_k)) for the boundaries c_k of `boundaries`."""
    from scipy import stats

    return [float(1 - 2 * stats.norm.sf(boundary)) for boundary in boundaries(fractions, alpha)]


def boundaries(fractions: tuple[float, ...], alpha: float = 1 - CONFIDENCE) -> list[float]:
    """The two-sided boundaries c_k on the Z scale (see the module's description)."""
    import numpy as np
    from scipy import stats

    first = min(float(stats.norm.isf(spent(fractions[0], alpha) / 2)), MAX_BOUNDARY)
    found = [first]
    # The density of the score S = Z sqrt(t) over the values that have not crossed, on a grid.
    edge = first * math.sqrt(fractions[0])
    grid = np.linspace(-edge, edge, GRID_POINTS)
    density = _normal_density(grid / math.sqrt(fractions[0])) / math.sqrt(fractions[0])
    for before, fraction in zip(fractions, fractions[1:], strict=False):
        step = math.sqrt(fraction - before)
        weights = density * _trapezoid_weights(grid)
        target = spent(fraction, alpha) - spent(before, alpha)
        edge = _crossing_edge(grid, weights, step, target)
        found.append(edge / math.sqrt(fraction))
        following = np.linspace(-edge, edge, GRID_POINTS)
        density = _normal_density((following[:, None] - grid[None, :]) / step) @ weights / step
        grid = following
    return found


def _trapezoid_weights(grid: np.ndarray) -> np.ndarray:
    import numpy as np

    weights = np.full(grid.shape, grid[1] - grid[0])
    weights[[0, -1]] /= 2
    return weights


def _crossing_edge(grid: np.ndarray, weights: np.ndarray, step: float, target: float) -> float:
    """The score edge b with P(|S_k| > b, not crossed before) = target."""
    from scipy import optimize, special

    def excess(edge: float) -> float:
        crossing = special.ndtr((grid - edge) / step) + special.ndtr((-edge - grid) / step)
        return float(weights @ crossing) - target

    return float(optimize.brentq(excess, 0.0, 40.0, xtol=1e-10))


def _normal_density(z: np.ndarray) -> np.ndarray:
    """The standard normal density (scipy.stats' costs a hundred times more per call)."""
    import numpy as np

    return np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
