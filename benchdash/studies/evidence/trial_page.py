"""The evidence part of a trial's page, from its TrialEvidence row: curves, summary figures, profile."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from benchdash.studies.evidence import charts
from benchdash.studies.evidence.bottleneck import Signals, bottleneck, cpu_busy
from benchdash.studies.evidence.compare import COLLECTORS
from benchdash.studies.evidence.perf import with_percent
from benchdash.studies.evidence.summary import UNSTABLE_CV, wait_shares
from benchdash.studies.evidence.table_health import TableHealthRow, trial_table_health
from benchdash.studies.evidence.wording import bottleneck_label, bottleneck_rule, collector_label
from benchdash.studies.models import Trial, TrialEvidence

WAIT_EVENTS_LISTED = 12
TOP_FUNCTIONS = 15


@dataclass(frozen=True)
class CollectorLine:
    name: str
    state: str
    state_label: str
    reason: str


@dataclass
class TrialEvidenceView:
    row: TrialEvidence | None
    collectors: list[CollectorLine] = field(default_factory=list)
    timeline: dict[str, Any] | None = None
    flame: dict[str, Any] | None = None
    waits: list[dict[str, Any]] = field(default_factory=list)
    perf_rows: list[tuple[dict | None, dict | None]] = field(default_factory=list)
    verdict_label: str = ""
    verdict_rule: str = ""
    unstable_cv: float = UNSTABLE_CV
    table_health: list[TableHealthRow] = field(default_factory=list)

    @property
    def cpu_busy(self) -> float | None:
        return None if self.row is None else cpu_busy(self.row.cpu_idle, self.row.cpu_iowait)


def trial_evidence_view(trial: Trial) -> TrialEvidenceView:
    row = getattr(trial, "evidence", None)
    if row is None:
        return TrialEvidenceView(row=None)
    view = TrialEvidenceView(row=row, collectors=_collectors(row), table_health=trial_table_health(row))
    if row.series:
        view.timeline = charts.trial_timeline_figure(row.series)
    if row.perf_flame:
        view.flame = charts.flame_figure(row.perf_flame)
        pairs = zip_longest(row.perf_self[:TOP_FUNCTIONS], row.perf_children[:TOP_FUNCTIONS])
        view.perf_rows = [(with_percent(own), with_percent(children)) for own, children in pairs]
    shares = wait_shares(row.wait_events)
    view.waits = [{**share, "percent": 100 * share["share"]} for share in shares[:WAIT_EVENTS_LISTED]]
    verdict = bottleneck(_signals(trial, row, shares))
    view.verdict_label, view.verdict_rule = bottleneck_label(verdict.label), bottleneck_rule(verdict)
    return view


def _collectors(row: TrialEvidence) -> list[CollectorLine]:
    labels = dict(TrialEvidence.State.choices)
    lines = []
    for name in COLLECTORS:
        state = row.collectors.get(name, {})
        code = state.get("state", "")
        lines.append(CollectorLine(collector_label(name), code, str(labels.get(code, code)), state.get("reason", "")))
    return lines


def _signals(trial: Trial, row: TrialEvidence, shares: list[dict[str, Any]]) -> Signals:
    by_type: dict[str, float] = {}
    for share in shares:
        by_type[share["wait_event_type"]] = by_type.get(share["wait_event_type"], 0.0) + share["share"]
    total = sum(share["count"] for share in shares)
    return Signals(
        clients=trial.clients,
        cpu_busy=cpu_busy(row.cpu_idle, row.cpu_iowait),
        cpu_iowait=row.cpu_iowait,
        cpu_steal=row.cpu_steal,
        disk_util_percent=row.disk_util_percent,
        wait_share_by_type=by_type if row.wait_samples else None,
        active_backends=total / row.wait_samples if row.wait_samples else None,
    )
