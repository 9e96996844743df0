"""Evidence per build x scenario x clients, from the trials' summaries, and how builds differ. Pure.

A point's figures are the means over its trials that have them (sar, wait events); wait-event counts are
added up over the trials before shares are taken. The bottleneck label of a point is the rule of
bottleneck.py applied to those figures.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchdash.studies.evidence.bottleneck import Signals, Verdict, bottleneck, cpu_busy
from benchdash.studies.evidence.summary import CPU_FIELDS

EvidenceKey = tuple[int, int, int]  # scenario_id, build_id, clients
WAIT_CHANGES_LISTED = 5
COLLECTORS = ("progress", "sar", "wait_events", "perf", "table_health")


@dataclass(frozen=True)
class EvidenceRow:
    """One trial's evidence summary, reduced to what the study page aggregates."""

    trial_id: int
    position: int
    build_id: int
    scenario_id: int
    clients: int
    repetition: int
    collectors: dict[str, dict[str, str]]
    cpus: int | None = None
    cpu: dict[str, float | None] = field(default_factory=dict)
    cpu_ms_per_transaction: float | None = None
    disk_util_percent: float | None = None
    disk_await_ms: float | None = None
    wait_samples: int = 0
    wait_events: list[dict[str, Any]] = field(default_factory=list)
    tps_cv: float | None = None
    unstable: bool = False

    @property
    def key(self) -> EvidenceKey:
        return (self.scenario_id, self.build_id, self.clients)


@dataclass(frozen=True)
class CollectorGap:
    """A collector that gave nothing for a trial: which one, in what state, and why."""

    collector: str
    state: str
    reason: str
    trial_id: int
    position: int


@dataclass(frozen=True)
class EvidencePoint:
    scenario_id: int
    build_id: int
    clients: int
    trials: int
    cpu: dict[str, float | None]
    cpu_ms_per_transaction: float | None
    disk_util_percent: float | None
    disk_await_ms: float | None
    wait_samples: int
    wait_counts: dict[tuple[str, str], int]
    active_backends: float | None
    tps_cv_max: float | None
    unstable_trials: int
    verdict: Verdict

    @property
    def cpu_busy(self) -> float | None:
        return cpu_busy(self.cpu.get("idle"), self.cpu.get("iowait"))

    def wait_shares(self) -> dict[tuple[str, str], float]:
        total = sum(self.wait_counts.values())
        return {event: count / total for event, count in self.wait_counts.items()} if total else {}


@dataclass(frozen=True)
class WaitChange:
    clients: int
    build_id: int
    wait_event_type: str
    wait_event: str
    baseline_share: float
    other_share: float

    @property
    def change(self) -> float:
        return self.other_share - self.baseline_share

    @property
    def baseline_percent(self) -> float:
        return 100.0 * self.baseline_share

    @property
    def other_percent(self) -> float:
        return 100.0 * self.other_share

    @property
    def change_points(self) -> float:
        return 100.0 * self.change


def evidence_points(rows: Iterable[EvidenceRow]) -> dict[EvidenceKey, EvidencePoint]:
    groups: dict[EvidenceKey, list[EvidenceRow]] = defaultdict(list)
    for row in rows:
        groups[row.key].append(row)
    return {key: _point(key, group) for key, group in groups.items()}


def _point(key: EvidenceKey, rows: list[EvidenceRow]) -> EvidencePoint:
    scenario_id, build_id, clients = key
    with_sar = [row for row in rows if row.cpu.get("idle") is not None]
    waits: Counter[tuple[str, str]] = Counter()
    for row in rows:
        for event in row.wait_events:
            waits[(event["wait_event_type"], event["wait_event"])] += int(event["count"])
    samples = sum(row.wait_samples for row in rows)
    cpu = {name: _mean(row.cpu.get(name) for row in with_sar) for name in CPU_FIELDS}
    active = sum(waits.values()) / samples if samples else None
    cvs = [row.tps_cv for row in rows if row.tps_cv is not None]
    point_signals = Signals(
        clients=clients,
        cpu_busy=cpu_busy(cpu["idle"], cpu["iowait"]),
        cpu_iowait=cpu["iowait"],
        cpu_steal=cpu["steal"],
        disk_util_percent=_mean(row.disk_util_percent for row in rows),
        wait_share_by_type=_share_by_type(waits) if samples else None,
        active_backends=active,
    )
    return EvidencePoint(
        scenario_id=scenario_id,
        build_id=build_id,
        clients=clients,
        trials=len(rows),
        cpu=cpu,
        cpu_ms_per_transaction=_mean(row.cpu_ms_per_transaction for row in rows),
        disk_util_percent=point_signals.disk_util_percent,
        disk_await_ms=_mean(row.disk_await_ms for row in rows),
        wait_samples=samples,
        wait_counts=dict(waits),
        active_backends=active,
        tps_cv_max=max(cvs) if cvs else None,
        unstable_trials=sum(1 for row in rows if row.unstable),
        verdict=bottleneck(point_signals),
    )


def _mean(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.fmean(present) if present else None


def _share_by_type(counts: Mapping[tuple[str, str], int]) -> dict[str, float]:
    total = sum(counts.values())
    by_type: Counter[str] = Counter()
    for (kind, _event), count in counts.items():
        by_type[kind] += count
    return {kind: count / total for kind, count in by_type.items()} if total else {}


def wait_changes(
    points: Mapping[EvidenceKey, EvidencePoint], scenario_id: int, baseline_id: int, other_id: int
) -> list[WaitChange]:
    """Per client level, the WAIT_CHANGES_LISTED wait events whose share moved most from the baseline
    build to the other (by absolute change), largest first."""
    changes: list[WaitChange] = []
    levels = sorted({key[2] for key in points if key[0] == scenario_id})
    for clients in levels:
        base, other = points.get((scenario_id, baseline_id, clients)), points.get((scenario_id, other_id, clients))
        if base is None or other is None or not base.wait_samples or not other.wait_samples:
            continue
        base_shares, other_shares = base.wait_shares(), other.wait_shares()
        level = [
            WaitChange(
                clients,
                other_id,
                kind,
                event,
                base_shares.get((kind, event), 0.0),
                other_shares.get((kind, event), 0.0),
            )
            for kind, event in set(base_shares) | set(other_shares)
        ]
        level.sort(key=lambda change: (-abs(change.change), change.wait_event_type, change.wait_event))
        changes.extend(level[:WAIT_CHANGES_LISTED])
    return changes


def collector_gaps(rows: Sequence[EvidenceRow]) -> list[CollectorGap]:
    """Every collector of every trial that gave nothing, in run order (perf's first-repetition rule and a
    collector the study turned off are not gaps: the page says those once)."""
    gaps = []
    for row in sorted(rows, key=lambda row: row.position):
        for name in COLLECTORS:
            state = row.collectors.get(name, {})
            if state.get("state") == "no_data":
                gaps.append(CollectorGap(name, "no_data", state.get("reason", ""), row.trial_id, row.position))
    return gaps
