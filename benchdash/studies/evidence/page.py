"""The evidence part of a study page, per scenario: what the view hands to studies/_evidence.html.

Reads the trials' evidence rows (store.py) and puts them side by side per build x clients (compare.py),
with their figures (charts.py). perf is shown at one client level per scenario: the one asked for, or
else the level where a build fell furthest behind the baseline (the seeds profiled 13.4 vs 14.0 where
14.0 lost most).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from django.utils.translation import gettext as _

from benchdash.studies.evidence import charts
from benchdash.studies.evidence.compare import (
    CollectorGap,
    EvidenceKey,
    EvidencePoint,
    EvidenceRow,
    WaitChange,
    collector_gaps,
    evidence_points,
    wait_changes,
)
from benchdash.studies.evidence.perf import perf_differential, unresolved_differ, unresolved_share, with_percent
from benchdash.studies.evidence.store import evidence_rows, perf_levels, perf_profiles
from benchdash.studies.evidence.wording import bottleneck_label, bottleneck_rule, collector_label
from benchdash.studies.models import Study
from benchdash.studies.results.tables import BuildColumn, ScenarioTable

TOP_FUNCTIONS = 12
DIFFERENTIAL_LISTED = 10


@dataclass(frozen=True)
class GapSummary:
    """One collector's missing data in a scenario, with one reason and how many trials gave it."""

    collector: str
    reason: str
    trials: int
    positions: list[int]


@dataclass(frozen=True)
class VerdictCell:
    column: BuildColumn
    point: EvidencePoint | None
    label: str
    rule: str
    code: str


@dataclass(frozen=True)
class VerdictRow:
    clients: int
    cells: list[VerdictCell]


@dataclass(frozen=True)
class PerfBuild:
    column: BuildColumn
    trial_id: int
    samples: int
    self_top: list[dict[str, Any]]
    children_top: list[dict[str, Any]]
    flame_id: str
    flame: dict[str, Any]
    unresolved: float = 0.0  # the share of samples perf could not name (perf.unresolved_share)
    symbols: str = ""  # what the server binary gave perf to name its functions with (workers/builds.probe_build)

    @property
    def unresolved_percent(self) -> str:
        return f"{self.unresolved:.1%}"

    @property
    def rows(self) -> list[tuple[dict[str, Any] | None, dict[str, Any] | None]]:
        """Self and with-children tops side by side, each with its share in percent."""
        pairs = zip_longest(self.self_top, self.children_top)
        return [(with_percent(own), with_percent(children)) for own, children in pairs]


@dataclass(frozen=True)
class PerfDifferential:
    baseline: BuildColumn
    other: BuildColumn
    figure_id: str
    figure: dict[str, Any]
    rows: list[Any]


@dataclass(frozen=True)
class PerfBlock:
    clients: int
    levels: list[int]
    builds: list[PerfBuild]
    differentials: list[PerfDifferential]

    @property
    def query(self) -> str:
        """The level in an address, as the page and an embedded chart take it."""
        return f"perf_clients={self.clients}"

    @property
    def unresolved_differ(self) -> bool:
        """The builds differ in how much perf could name: their differential compares unlike things."""
        return unresolved_differ(build.unresolved for build in self.builds)


@dataclass(frozen=True)
class EvidenceSection:
    scenario_id: int
    scenario_slug: str
    scenario_name: str
    columns: list[BuildColumn]
    levels: list[int]
    has_sar: bool
    has_waits: bool
    figures: dict[str, tuple[str, dict[str, Any]]]
    verdict_rows: list[VerdictRow]
    changes: list[tuple[BuildColumn, list[WaitChange]]]
    perf: PerfBlock | None
    gaps: list[GapSummary]


@dataclass(frozen=True)
class StudyEvidence:
    sections: list[EvidenceSection]
    off: list[str] = field(default_factory=list)
    trials_with_evidence: int = 0

    @property
    def draws_flames(self) -> bool:
        """A perf call tree is drawn (an icicle), which only the larger plotly.js bundle holds."""
        return any(section.perf and section.perf.builds for section in self.sections)


def study_evidence(study: Study, tables: Sequence[ScenarioTable], perf_clients: str | None = None) -> StudyEvidence:
    """The evidence of a study, a section per scenario table (the same builds and order as the table)."""
    rows = evidence_rows(study)
    points = evidence_points(rows)
    levels_with_perf = perf_levels(study) if study.collect_perf else {}
    sections = [
        _section(study, table, rows, points, levels_with_perf.get(table.scenario_id, []), perf_clients)
        for table in tables
    ]
    return StudyEvidence(sections=sections, off=collectors_off(study), trials_with_evidence=len(rows))


def collectors_off(study: Study) -> list[str]:
    off = []
    if not study.collect_sar:
        off.append(_("sar was off for this study: no CPU, disk or memory figures."))
    if not study.collect_wait_events:
        off.append(_("Wait-event sampling was off for this study: no wait events."))
    if not study.collect_perf:
        off.append(_("perf was off for this study: no profiles or flame graphs."))
    return off


def _section(
    study: Study,
    table: ScenarioTable,
    rows: Sequence[EvidenceRow],
    points: Mapping[EvidenceKey, EvidencePoint],
    perf_level_list: list[int],
    perf_clients: str | None,
) -> EvidenceSection:
    scenario_id, columns = table.scenario_id, table.columns
    levels = sorted({key[2] for key in points if key[0] == scenario_id} | {row.clients for row in table.rows})
    mine = {key: point for key, point in points.items() if key[0] == scenario_id}
    prefix = f"evidence-{scenario_id}"
    figures = {
        "cpu": (f"{prefix}-cpu", charts.cpu_breakdown_figure(mine, scenario_id, columns, levels)),
        "cpu_tx": (f"{prefix}-cpu-tx", charts.cpu_per_transaction_figure(mine, scenario_id, columns, levels)),
        "waits": (f"{prefix}-waits", charts.wait_events_figure(mine, scenario_id, columns, levels)),
    }
    baseline = next((column for column in columns if column.is_baseline), columns[0] if columns else None)
    changes = [
        (column, wait_changes(mine, scenario_id, baseline.build_id, column.build_id))
        for column in columns
        if baseline and column.build_id != baseline.build_id
    ]
    verdict_rows = [
        VerdictRow(
            clients, [_verdict_cell(column, mine.get((scenario_id, column.build_id, clients))) for column in columns]
        )
        for clients in levels
    ]
    chosen = _perf_level(perf_level_list, table, perf_clients)
    perf = _perf_block(study, scenario_id, columns, chosen, perf_level_list) if chosen is not None else None
    return EvidenceSection(
        scenario_id=scenario_id,
        scenario_slug=table.scenario_slug,
        scenario_name=table.scenario_name,
        columns=columns,
        levels=levels,
        has_sar=any(point.cpu.get("idle") is not None for point in mine.values()),
        has_waits=any(point.wait_samples for point in mine.values()),
        figures=figures,
        verdict_rows=verdict_rows,
        changes=changes,
        perf=perf,
        gaps=summarize_gaps(collector_gaps([row for row in rows if row.scenario_id == scenario_id])),
    )


def _verdict_cell(column: BuildColumn, point: EvidencePoint | None) -> VerdictCell:
    if point is None:
        return VerdictCell(column, None, "", "", "")
    verdict = point.verdict
    return VerdictCell(column, point, bottleneck_label(verdict.label), bottleneck_rule(verdict), str(verdict.label))


def summarize_gaps(gaps: Sequence[CollectorGap]) -> list[GapSummary]:
    grouped: dict[tuple[str, str], list[int]] = {}
    for gap in gaps:
        grouped.setdefault((gap.collector, gap.reason), []).append(gap.position)
    return [
        GapSummary(collector_label(collector), reason, len(positions), positions[:10])
        for (collector, reason), positions in grouped.items()
    ]


def _perf_level(levels: list[int], table: ScenarioTable, asked: str | None) -> int | None:
    """The client level asked for when it has profiles; else where a build's ratio to the baseline is lowest."""
    if not levels:
        return None
    if asked and asked.isdigit() and int(asked) in levels:
        return int(asked)
    ratios = Counter(
        {
            row.clients: -min(cell.point.ratio for cell in row.compared_cells if cell.point and cell.point.ratio)
            for row in table.rows
            if row.clients in levels and any(cell.point and cell.point.ratio for cell in row.compared_cells)
        }
    )
    return ratios.most_common(1)[0][0] if ratios else levels[0]


def _perf_block(
    study: Study, scenario_id: int, columns: Sequence[BuildColumn], clients: int, levels: list[int]
) -> PerfBlock:
    profiles = perf_profiles(study, scenario_id, clients)
    builds = [
        PerfBuild(
            column=column,
            trial_id=profile["trial_id"],
            samples=profile["perf_samples"],
            self_top=profile["perf_self"][:TOP_FUNCTIONS],
            children_top=profile["perf_children"][:TOP_FUNCTIONS],
            flame_id=f"flame-{scenario_id}-{column.build_id}",
            flame=charts.flame_figure(profile["perf_flame"]),
            unresolved=unresolved_share(profile["perf_self"]),
            symbols=profile["symbols"] or "",
        )
        for column in columns
        if (profile := profiles.get(column.build_id))
    ]
    differentials = []
    baseline = next((build for build in builds if build.column.is_baseline), None)
    for other in builds:
        if baseline is None or other is baseline:
            continue
        ranked = perf_differential(
            _shares(profiles[baseline.column.build_id]), _shares(profiles[other.column.build_id])
        )
        figure = charts.perf_differential_figure(ranked, baseline.column.name, other.column.name)
        figure_id = f"perf-diff-{scenario_id}-{other.column.build_id}"
        listed = ranked[:DIFFERENTIAL_LISTED] + [
            change for change in ranked[-DIFFERENTIAL_LISTED:] if change.change < 0
        ]
        differentials.append(PerfDifferential(baseline.column, other.column, figure_id, figure, listed))
    return PerfBlock(clients=clients, levels=levels, builds=builds, differentials=differentials)


def _shares(profile: Mapping[str, Any]) -> dict[str, float]:
    return {row["function"]: row["share"] for row in profile["perf_self"]}
