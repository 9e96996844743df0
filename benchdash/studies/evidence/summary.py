"""One trial's evidence, summarised from its artifacts as the engine stored them. Pure functions.

- progress (pgbench -P 1): per-second TPS and latency -> warm-up, coefficient of variation, instability;
- sar_series (collectors.parse_sadf_json): mean CPU user/system/iowait/steal/idle, the busiest disk's
  utilisation and await, memory, and CPU time per transaction;
- wait_events (collectors.parse_wait_samples): each wait event's share of the sampled active backends;
- perf_folded: see perf.py;
- table_health (workers/table_health.py): a row per pgbench table and index, see table_health.py.

A time series for the trial page puts them on one axis: seconds since the run started (pgbench and the
collectors start together, so each series' first sample is its first second).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from benchdash.studies.evidence.perf import PerfSummary, summarize_perf
from benchdash.studies.evidence.table_health import summarize_table_health

# A run whose per-second TPS varies more than this (standard deviation / mean, after the warm-up) is
# flagged unstable: its mean hides a changing rate.
UNSTABLE_CV = 0.10
# The warm-up: the leading seconds whose TPS is below this part of the steady rate (the median of the
# second half of the run).
WARMUP_LEVEL = 0.9
CPU_FIELDS = ("user", "system", "iowait", "steal", "idle")
# pg_stat_activity shows an active backend without a wait event as on CPU (collectors.WAIT_EVENTS_SQL).
ON_CPU = ("CPU", "CPU")


@dataclass(frozen=True)
class ProgressSummary:
    seconds: int
    tps_mean: float | None
    tps_cv: float | None
    warmup_s: float
    unstable: bool


@dataclass(frozen=True)
class SarSummary:
    cpus: int | None
    cpu: dict[str, float | None]  # CPU_FIELDS -> mean %
    disk_device: str
    disk_util_percent: float | None
    disk_await_ms: float | None
    memory_used_percent: float | None


@dataclass(frozen=True)
class WaitSummary:
    samples: int
    counts: list[dict[str, Any]]  # wait_event_type, wait_event, count: largest first

    @property
    def total(self) -> int:
        return sum(row["count"] for row in self.counts)

    @property
    def active_mean(self) -> float | None:
        """Active backends per sample, on average."""
        return self.total / self.samples if self.samples else None


@dataclass
class TrialSummary:
    """Everything a trial's evidence row holds; a part is None where its collector gave nothing."""

    progress: ProgressSummary | None = None
    sar: SarSummary | None = None
    cpu_ms_per_transaction: float | None = None
    waits: WaitSummary | None = None
    perf: PerfSummary | None = None
    series: dict[str, Any] = field(default_factory=dict)
    table_health: list[dict[str, Any]] = field(default_factory=list)


def summarize_trial(
    artifacts: Mapping[str, bytes], *, transactions: int | None, duration_s: float | None
) -> TrialSummary:
    """The summary of one trial from its artifacts (kind -> bytes); a kind that is absent gives nothing."""
    summary = TrialSummary()
    progress = _json(artifacts.get("progress"))
    if progress:
        summary.progress = summarize_progress(progress)
        summary.series["progress"] = progress_series(progress)
    sar = _json(artifacts.get("sar_series"))
    if sar and sar.get("time"):
        sar = within_run(sar, duration_s)
        summary.sar = summarize_sar(sar)
        summary.cpu_ms_per_transaction = cpu_ms_per_transaction(summary.sar, transactions, duration_s)
        summary.series["sar"] = sar_timeline(sar)
    waits = _json(artifacts.get("wait_events"))
    if waits and waits.get("samples"):
        summary.waits = summarize_waits(waits, duration_s)
        summary.series["waits"] = wait_timeline(waits)
    if artifacts.get("perf_folded"):
        summary.perf = summarize_perf(artifacts["perf_folded"].decode("utf-8", "replace"))
    summary.table_health = summarize_table_health(_json(artifacts.get("table_health")) or {})
    return summary


def _json(data: bytes | None) -> Any:
    return json.loads(data) if data else None


def _seconds(times: Sequence[str], interval_s: float) -> list[float]:
    """Each sample's end as seconds since the run started: the first sample closes the first interval."""
    moments = [_timestamp(text) for text in times]
    return [round((moment - moments[0]).total_seconds() + interval_s, 3) for moment in moments]


def _timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def within_run(sar: Mapping[str, Any], duration_s: float | None) -> dict[str, Any]:
    """sar's samples of the run only: the collectors stop after pgbench, so a second or two of an idle
    machine trails the run and would dilute the means."""
    interval = float(sar.get("interval_s") or 1)
    seconds = _seconds(sar["time"], interval)
    keep = len(seconds) if not duration_s else sum(1 for second in seconds if second <= duration_s + interval / 2)
    keep = max(keep, 1)

    def cut(columns: Mapping[str, list]) -> dict[str, list]:
        return {name: values[:keep] for name, values in columns.items()}

    return {
        **sar,
        "time": sar["time"][:keep],
        "cpu": cut(sar.get("cpu", {})),
        "memory": cut(sar.get("memory", {})),
        "disks": {name: cut(columns) for name, columns in sar.get("disks", {}).items()},
    }


# -- pgbench progress ------------------------------------------------------------------------
def summarize_progress(progress: Sequence[Mapping[str, Any]]) -> ProgressSummary:
    """Warm-up, then mean and coefficient of variation of the per-second TPS after it."""
    rates = [float(point["tps"]) for point in progress if point.get("tps") is not None]
    warmup = warmup_seconds(rates)
    steady = rates[warmup:]
    mean = statistics.fmean(steady) if steady else None
    cv = statistics.pstdev(steady) / mean if mean and len(steady) > 1 else None
    return ProgressSummary(
        seconds=len(rates),
        tps_mean=mean,
        tps_cv=cv,
        warmup_s=float(warmup),
        unstable=cv is not None and cv > UNSTABLE_CV,
    )


def warmup_seconds(rates: Sequence[float]) -> int:
    """How many leading seconds stay below WARMUP_LEVEL of the steady rate (the median of the second half)."""
    if len(rates) < 4:
        return 0
    steady = statistics.median(rates[len(rates) // 2 :])
    for second, rate in enumerate(rates):
        if rate >= WARMUP_LEVEL * steady:
            return second
    return 0


def progress_series(progress: Sequence[Mapping[str, Any]]) -> dict[str, list]:
    return {
        "t": [point.get("t") for point in progress],
        "tps": [point.get("tps") for point in progress],
        "latency_ms": [point.get("latency_ms") for point in progress],
    }


# -- sar --------------------------------------------------------------------------------------
def summarize_sar(sar: Mapping[str, Any]) -> SarSummary:
    """Means over the samples; the disk shown is the one with the highest mean utilisation."""
    cpu = {name: _mean(sar.get("cpu", {}).get(name, [])) for name in CPU_FIELDS}
    disks = sar.get("disks", {})
    busiest = max(disks, key=lambda name: _mean(disks[name].get("util_percent", [])) or 0.0, default="")
    disk = disks.get(busiest, {})
    return SarSummary(
        cpus=sar.get("cpus"),
        cpu=cpu,
        disk_device=busiest,
        disk_util_percent=_mean(disk.get("util_percent", [])),
        disk_await_ms=_mean(disk.get("await_ms", [])),
        memory_used_percent=_mean(sar.get("memory", {}).get("used_percent", [])),
    )


def cpu_ms_per_transaction(sar: SarSummary, transactions: int | None, duration_s: float | None) -> float | None:
    """CPU milliseconds (user + system, all CPUs of the DB host) per transaction over the run.

    (user + system) / 100 x CPUs x duration = CPU seconds spent; divided by the transactions pgbench
    counted. The whole host counts, pgbench too when it runs there.
    """
    user, system = sar.cpu.get("user"), sar.cpu.get("system")
    if user is None or system is None or not sar.cpus or not transactions or not duration_s:
        return None
    return (user + system) / 100.0 * sar.cpus * duration_s * 1000.0 / transactions


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.fmean(present) if present else None


def sar_timeline(sar: Mapping[str, Any]) -> dict[str, Any]:
    """The sar columns against seconds since the run started."""
    seconds = _seconds(sar["time"], float(sar.get("interval_s") or 1))
    summary = summarize_sar(sar)
    disk = sar.get("disks", {}).get(summary.disk_device, {})
    return {
        "t": seconds,
        "cpu": {name: sar.get("cpu", {}).get(name, []) for name in CPU_FIELDS},
        "disk_device": summary.disk_device,
        "disk_util_percent": disk.get("util_percent", []),
        "disk_await_ms": disk.get("await_ms", []),
        "memory_used_percent": sar.get("memory", {}).get("used_percent", []),
    }


# -- wait events ------------------------------------------------------------------------------
def wait_shares(counts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each (wait_event_type, wait_event) with its share of the sampled active backends (0..1)."""
    total = sum(int(row["count"]) for row in counts)
    return [
        {
            "wait_event_type": row["wait_event_type"],
            "wait_event": row["wait_event"],
            "count": int(row["count"]),
            "share": int(row["count"]) / total if total else 0.0,
        }
        for row in counts
    ]


def summarize_waits(waits: Mapping[str, Any], duration_s: float | None) -> WaitSummary:
    """Counts per (wait_event_type, wait_event) over the samples taken while the run lasted."""
    series = waits.get("series", [])
    if not series or not duration_s:
        return WaitSummary(samples=int(waits["samples"]), counts=list(waits.get("counts", [])))
    seconds = _seconds([sample["t"] for sample in series], float(waits.get("interval_s") or 1))
    kept = [sample for sample, second in zip(series, seconds, strict=True) if second <= duration_s + 0.5] or series
    totals: Counter[tuple[str, str]] = Counter()
    for sample in kept:
        for key, count in sample["counts"].items():
            kind, _sep, event = key.partition(":")
            totals[(kind, event)] += int(count)
    ordered = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    counts = [{"wait_event_type": kind, "wait_event": event, "count": count} for (kind, event), count in ordered]
    return WaitSummary(samples=len(kept), counts=counts)


def wait_timeline(waits: Mapping[str, Any]) -> dict[str, Any]:
    """Active backends per sample by wait_event_type, against seconds since the run started."""
    series = waits.get("series", [])
    if not series:
        return {}
    kinds = sorted({key.split(":", 1)[0] for sample in series for key in sample["counts"]})
    by_kind = {
        kind: [sum(n for key, n in sample["counts"].items() if key.split(":", 1)[0] == kind) for sample in series]
        for kind in kinds
    }
    seconds = _seconds([sample["t"] for sample in series], float(waits.get("interval_s") or 1))
    return {"t": seconds, "by_type": by_kind}
