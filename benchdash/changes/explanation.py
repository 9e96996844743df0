"""The explanation card of a change: what moved in the evidence between its two sides, ranked. Pure.

The rule, as the card states it (RULE):
1. Settings and environment (server settings, server and pgbench versions, host facts) that differ between the
   two sides come first: they change the experiment itself, so every other difference may follow from them.
2. Then every figure of the evidence, each in percentage points of its own whole: the CPU breakdown (% of CPU
   time), wait events (% of wait samples), perf functions (% of profiled samples, self time: the differential),
   table health (dead-tuple and HOT shares, %); ranked by how far it moved, largest first, whichever way.
3. A figure that moved less than LEAST_POINTS is left out, and at most LISTED figures are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db.models import TextChoices
from django.utils.translation import gettext_lazy as _

LEAST_POINTS = 1.0
LISTED = 12
RULE = _(
    "Settings and environment that differ between the two sides come first (they change the experiment itself). "
    "Then every figure of the evidence, in percentage points of its own whole: CPU breakdown (percent of CPU "
    "time), wait events (percent of wait samples), perf functions (percent of profiled samples, self time), table "
    "health (dead-tuple and HOT shares); ranked by how far it moved, largest first, whichever way. Figures that "
    "moved less than 1 point are left out; at most 12 are shown."
)


class Evidence(TextChoices):
    """What a moved thing is: a stable code, shown by its label in the page's language."""

    CPU = "cpu", _("CPU")
    WAIT = "wait", _("Wait events")
    FUNCTION = "function", _("perf functions")
    TABLE = "table", _("Table health")
    SETTING = "setting", _("Setting")
    ENVIRONMENT = "environment", _("Environment")


@dataclass(frozen=True)
class SideEvidence:
    """One side of a change. Figures are percentages (0..100) of their own whole, keyed by name."""

    cpu: Mapping[str, float] = field(default_factory=dict)
    waits: Mapping[str, float] = field(default_factory=dict)
    functions: Mapping[str, float] = field(default_factory=dict)
    table_health: Mapping[str, float] = field(default_factory=dict)
    settings: Mapping[str, str] = field(default_factory=dict)
    environment: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Moved:
    """One thing that differs: for a figure `moved` is after - before in percentage points; None for a setting
    or an environment fact (they differ or they do not)."""

    evidence: str
    name: str
    before: float | str | None
    after: float | str | None
    moved: float | None = None

    @property
    def evidence_label(self) -> str:
        return str(Evidence(self.evidence).label)


def explain(before: SideEvidence, after: SideEvidence) -> list[Moved]:
    """What moved from `before` to `after`, by the rule of the module's docstring."""
    differing = _differences(Evidence.SETTING, before.settings, after.settings)
    differing += _differences(Evidence.ENVIRONMENT, before.environment, after.environment)
    figures = [
        *_figures(Evidence.CPU, before.cpu, after.cpu, absent_is_zero=False),
        *_figures(Evidence.WAIT, before.waits, after.waits, absent_is_zero=True),
        *_figures(Evidence.FUNCTION, before.functions, after.functions, absent_is_zero=True),
        *_figures(Evidence.TABLE, before.table_health, after.table_health, absent_is_zero=False),
    ]
    moved = [figure for figure in figures if abs(figure.moved or 0.0) >= LEAST_POINTS]
    moved.sort(key=lambda figure: (-abs(figure.moved or 0.0), figure.evidence, figure.name))
    return differing + moved[:LISTED]


def _differences(evidence: str, before: Mapping[str, str], after: Mapping[str, str]) -> list[Moved]:
    names = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
    return [Moved(evidence, name, before.get(name), after.get(name)) for name in names]


def _figures(
    evidence: str, before: Mapping[str, float], after: Mapping[str, float], *, absent_is_zero: bool
) -> list[Moved]:
    """A wait event or a function missing on one side was not seen there (0); a CPU or table figure missing on one
    side was not measured there, and is not compared."""
    names = set(before) | set(after) if absent_is_zero else set(before) & set(after)
    return [
        Moved(evidence, name, before.get(name, 0.0), after.get(name, 0.0), after.get(name, 0.0) - before.get(name, 0.0))
        for name in names
    ]
