"""The words of the evidence in the page's language: bottleneck labels, their rules, collector names."""

from __future__ import annotations

from django.utils.translation import gettext as _

from benchdash.studies.evidence.bottleneck import Bottleneck, Verdict


def bottleneck_label(label: Bottleneck) -> str:
    return {
        Bottleneck.CPU: _("CPU-bound"),
        Bottleneck.IO: _("I/O-bound"),
        Bottleneck.LOCK: _("lock/wait-bound"),
        Bottleneck.CLIENT: _("client-bound"),
        Bottleneck.UNKNOWN: _("unknown"),
    }[label]


def bottleneck_rule(verdict: Verdict) -> str:
    """The rule that gave the label, with the figures it compared."""
    figures = {name: f"{value:.1f}" for name, value in verdict.figures.items()}
    rules = {
        "iowait": _("CPU iowait %(value)s%% ≥ %(threshold)s%%"),
        "disk_util": _("disk utilisation %(value)s%% ≥ %(threshold)s%%"),
        "io_waits": _("IO wait events %(value)s%% of sampled backends ≥ %(threshold)s%%"),
        "lock_waits": _("Lock + LWLock + BufferPin waits %(value)s%% of sampled backends ≥ %(threshold)s%%"),
        "cpu_busy": _("CPU busy (100 − idle − iowait) %(value)s%% ≥ %(threshold)s%% (steal %(steal)s%%)"),
        "few_active": _(
            "%(value)s active backends per sample for %(clients)s clients (< %(threshold)s%%), "
            "CPU busy %(cpu_busy)s%% < %(cpu_threshold)s%%"
        ),
        "none_held": _("no rule held: CPU, disk and waits below their thresholds"),
        "no_data": _("no sar and no wait-event data"),
    }
    return rules[verdict.rule] % figures


def collector_label(name: str) -> str:
    return {
        "progress": _("pgbench progress"),
        "sar": "sar",
        "wait_events": _("wait events"),
        "perf": "perf",
        "table_health": _("table health"),
    }.get(name, name)
