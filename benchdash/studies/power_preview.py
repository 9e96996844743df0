"""Power before and after a study runs (issue 22, point 1): per scenario, the spread expected on the DB host and
what the design can tell with it (studies/results/power.py); on the study page the same figures from its own runs.

Where the spread comes from, in this order: the host's recent studies of the scenario at the study's client levels
(results/host_spread.py, pooled; the pooled t interval will borrow it), or where the host has too few of its own, those
of hosts of its kind (the same instance type and image, or the same hardware), else the host's latest noise check (its
micro-run's CV: a lower bound, pgbench spreads more), else nothing (the page says it cannot tell).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Host
from benchdash.studies.models import Scenario, Study
from benchdash.studies.results.compare import Point
from benchdash.studies.results.host_spread import pooled_by_cell, spread_history, spread_source
from benchdash.studies.results.pooled import HostSpread
from benchdash.studies.results.power import DesignPower, ExpectedSpread, design_power
from benchdash.studies.results.sequential import Design

RECENT, KIND, NOISE_CHECK, THIS_STUDY = "recent studies", "host kind", "noise check", "this study"
SOURCE_LABELS = {
    RECENT: _("from the host's recent studies of this scenario"),
    NOISE_CHECK: _("from the host's noise check (its micro-run: pgbench spreads more)"),
    THIS_STUDY: _("measured: this study's runs"),
}


@dataclass(frozen=True)
class ScenarioPower:
    scenario: Scenario
    power: DesignPower | None  # None: no spread known for it
    kind_source: str = ""  # where a spread of the host's kind comes from, in words (host_spread.spread_source)

    @property
    def cv_percent(self) -> str:
        return f"{self.power.spread.cv:.1%}" if self.power else ""

    @property
    def source_label(self) -> str | Promise:
        if self.power is None:
            return ""
        return self.kind_source if self.power.spread.source == KIND else SOURCE_LABELS[self.power.spread.source]

    @property
    def smallest_percent(self) -> str:
        smallest = self.power.smallest_callable if self.power else None
        return "" if smallest is None else f"+{smallest:.1%}"


def preview_power(
    host: Host | None, scenarios: Iterable[Scenario], clients: list[int], design: Design, threshold: float
) -> list[ScenarioPower]:
    """The preview's figures per scenario, from the host's history (or its kind's) or its noise check."""
    history = spread_history(host, None)
    noise = _noise_spread(host)
    rows = []
    for scenario in scenarios:
        spread = _pooled(history.get((scenario.pk, level)) for level in clients)
        expected = ExpectedSpread(spread.cv, KIND if spread.kind else RECENT, spread.degrees) if spread else noise
        power = design_power(expected, design, threshold) if expected else None
        rows.append(ScenarioPower(scenario, power, spread_source(spread) if spread and spread.kind else ""))
    return rows


def measured_power(study: Study, points: Iterable[Point]) -> list[ScenarioPower]:
    """The same figures from the study's own runs (the spread of its cells, pooled per scenario); `points` are
    its results (study_results), runs included."""
    cells = pooled_by_cell((point.scenario_id, point.clients, point.runs) for point in points)
    powers = []
    for scenario in study.scenarios.all():
        spread = _pooled(value for (scenario_id, _clients), value in cells.items() if scenario_id == scenario.pk)
        power = None
        if spread is not None:
            expected = ExpectedSpread(spread.cv, THIS_STUDY, spread.degrees)
            power = design_power(expected, study.design, study.threshold)
        powers.append(ScenarioPower(scenario, power))
    return powers


def _pooled(spreads: Iterable[HostSpread | None]) -> HostSpread | None:
    """The spreads of several client levels as one; where one is its kind's, the pool names the kind, and counts
    the studies of the level that pools the most."""
    known = [spread for spread in spreads if spread is not None]
    degrees = sum(spread.degrees for spread in known)
    if not degrees:
        return None
    variance = sum(spread.variance * spread.degrees for spread in known) / degrees
    kind = next((spread.kind for spread in known if spread.kind), "")
    return HostSpread(variance, degrees, max(spread.studies for spread in known), kind)


def _noise_spread(host: Host | None) -> ExpectedSpread | None:
    micro = ((host.noise_check or {}).get("facts") or {}).get("micro_cv") if host else None
    return ExpectedSpread(float(micro), NOISE_CHECK) if isinstance(micro, int | float) and micro > 0 else None
