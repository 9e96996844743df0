"""The comparison page's content: two sides' table, their chart and what moved in their evidence."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from benchdash.changes.card import Side, side_evidence
from benchdash.changes.explanation import Moved, SideEvidence, explain
from benchdash.changes.side_by_side import (
    SIDE_A,
    SIDE_B,
    SideBySideRow,
    as_side,
    common_levels,
    side_by_side_figure,
    side_by_side_rows,
)
from benchdash.changes.sides import CompareSide
from benchdash.studies.models import Scenario
from benchdash.studies.results.compare import Comparing


@dataclass(frozen=True)
class EvidenceDifference:
    """What moved in the evidence between the sides at one scenario and client level; None where neither side's
    trials left any (published figures)."""

    scenario_name: str
    clients: int
    moved: list[Moved] | None


@dataclass(frozen=True)
class SideBySide:
    a: CompareSide
    b: CompareSide
    rows: list[SideBySideRow]
    figure: dict
    evidence: list[EvidenceDifference]
    scenario_names: dict[int, str]

    @property
    def sides(self) -> list[tuple[CompareSide, str]]:
        return [(self.a, "a"), (self.b, "b")]

    @property
    def query(self) -> str:
        """The two sides in an address: `a=...&b=...`."""
        return urlencode({"a": self.a.ref, "b": self.b.ref})

    @property
    def named_rows(self) -> list[tuple[str, SideBySideRow]]:
        return [(self.scenario_names.get(row.scenario_id, row.scenario_slug), row) for row in self.rows]


def side_by_side(a: CompareSide, b: CompareSide) -> SideBySide:
    """b against a, at b's study's threshold (the hosts may differ, so no host's spread is pooled in)."""
    a_points, b_points = as_side(a.points, SIDE_A, a.title), as_side(b.points, SIDE_B, b.title)
    rows = side_by_side_rows(a_points, b_points, Comparing(threshold=b.study.threshold))
    names = Scenario.objects.filter(id__in={row.scenario_id for row in rows}).display_names()
    return SideBySide(
        a=a,
        b=b,
        rows=rows,
        figure=side_by_side_figure(a_points, b_points, statistic=b.study.statistic),
        evidence=_evidence(a, b, names),
        scenario_names=names,
    )


def _evidence(a: CompareSide, b: CompareSide, names: dict[int, str]) -> list[EvidenceDifference]:
    differences = []
    for scenario_id, clients in common_levels(a.points, b.points).items():
        before, after = (
            side_evidence(Side(side.study, side.build_id, scenario_id, clients, side.variant_id)) for side in (a, b)
        )
        moved = None if before == after == SideEvidence() else explain(before, after)
        differences.append(EvidenceDifference(names.get(scenario_id, ""), clients, moved))
    return differences
