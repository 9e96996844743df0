"""What held a build back at one client level: a label, and the rule (with the figures) that gave it. Pure.

The rules, tried in this order; the first that holds gives the label:
1. I/O-bound: CPU iowait >= IOWAIT_PERCENT, or the busiest disk's utilisation >= DISK_UTIL_PERCENT, or
   wait events of type IO >= IO_WAIT_SHARE of the sampled active backends (the seeds' 2020 update runs:
   CPU under 10 %, %util stuck at 100 %).
2. lock/wait-bound: wait events of type Lock, LWLock or BufferPin >= LOCK_WAIT_SHARE of the sampled
   active backends (the seeds' 2014 WAL insert lock).
3. CPU-bound: CPU busy (100 - idle - iowait, steal included) >= CPU_BUSY_PERCENT.
4. client-bound: fewer than CLIENT_ACTIVE_SHARE of the clients had a backend active per sample, while
   the CPU was not busy: the backends wait for pgbench (or the network) between statements.
5. unknown: no collector data, or none of the above held.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

IOWAIT_PERCENT = 20.0
DISK_UTIL_PERCENT = 90.0
IO_WAIT_SHARE = 0.40
LOCK_WAIT_SHARE = 0.30
CPU_BUSY_PERCENT = 85.0
CLIENT_ACTIVE_SHARE = 0.5
LOCK_TYPES = ("Lock", "LWLock", "BufferPin")


def cpu_busy(idle: float | None, iowait: float | None) -> float | None:
    """100 - idle - iowait (%): CPU time spent on something (user, system, steal, nice, irq); None without sar."""
    return None if idle is None else max(0.0, 100.0 - idle - (iowait or 0.0))


class Bottleneck(StrEnum):
    CPU = "cpu"
    IO = "io"
    LOCK = "lock"
    CLIENT = "client"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Signals:
    """The figures the rules read; None where the collector gave nothing."""

    clients: int
    cpu_busy: float | None = None  # %
    cpu_iowait: float | None = None  # %
    cpu_steal: float | None = None  # %
    disk_util_percent: float | None = None
    wait_share_by_type: dict[str, float] | None = None  # wait_event_type -> share of sampled backends (0..1)
    active_backends: float | None = None  # per sample


@dataclass(frozen=True)
class Verdict:
    """The label, the rule that gave it (its name) and the figures it compared, for the page to word."""

    label: Bottleneck
    rule: str
    figures: dict[str, float]


def bottleneck(signals: Signals) -> Verdict:
    for rule in (_io_bound, _lock_bound, _cpu_bound, _client_bound):
        verdict = rule(signals)
        if verdict is not None:
            return verdict
    has_data = signals.cpu_busy is not None or signals.wait_share_by_type is not None
    return Verdict(Bottleneck.UNKNOWN, "none_held" if has_data else "no_data", {})


def _io_bound(signals: Signals) -> Verdict | None:
    if signals.cpu_iowait is not None and signals.cpu_iowait >= IOWAIT_PERCENT:
        return Verdict(Bottleneck.IO, "iowait", {"value": signals.cpu_iowait, "threshold": IOWAIT_PERCENT})
    if signals.disk_util_percent is not None and signals.disk_util_percent >= DISK_UTIL_PERCENT:
        figures = {"value": signals.disk_util_percent, "threshold": DISK_UTIL_PERCENT}
        return Verdict(Bottleneck.IO, "disk_util", figures)
    io_share = (signals.wait_share_by_type or {}).get("IO", 0.0)
    if io_share >= IO_WAIT_SHARE:
        return Verdict(Bottleneck.IO, "io_waits", {"value": io_share * 100, "threshold": IO_WAIT_SHARE * 100})
    return None


def _lock_bound(signals: Signals) -> Verdict | None:
    shares = signals.wait_share_by_type or {}
    lock_share = sum(shares.get(kind, 0.0) for kind in LOCK_TYPES)
    if lock_share >= LOCK_WAIT_SHARE:
        return Verdict(Bottleneck.LOCK, "lock_waits", {"value": lock_share * 100, "threshold": LOCK_WAIT_SHARE * 100})
    return None


def _cpu_bound(signals: Signals) -> Verdict | None:
    if signals.cpu_busy is not None and signals.cpu_busy >= CPU_BUSY_PERCENT:
        figures = {"value": signals.cpu_busy, "threshold": CPU_BUSY_PERCENT, "steal": signals.cpu_steal or 0.0}
        return Verdict(Bottleneck.CPU, "cpu_busy", figures)
    return None


def _client_bound(signals: Signals) -> Verdict | None:
    if signals.active_backends is None or signals.cpu_busy is None:
        return None
    if signals.active_backends < CLIENT_ACTIVE_SHARE * signals.clients:
        figures = {
            "value": signals.active_backends,
            "clients": float(signals.clients),
            "threshold": CLIENT_ACTIVE_SHARE * 100,
            "cpu_busy": signals.cpu_busy,
            "cpu_threshold": CPU_BUSY_PERCENT,
        }
        return Verdict(Bottleneck.CLIENT, "few_active", figures)
    return None
