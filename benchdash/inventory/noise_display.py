"""A noise check's report (workers/preflight.py) as the host and study pages say it: a plain verdict, each finding
in a sentence, and the facts it read."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

VERDICTS = {
    "quiet": _("Quiet: nothing found that would widen the run-to-run spread."),
    "some_noise": _("Some noise: settings that add variance; the study runs, its spread may be wider."),
    "noisy": _("Noisy: other work on the host now; expect a wide spread and more runs before a verdict."),
    "unknown": _("Not checked: the check could not run on the host."),
}
BUSY = _(
    "Not checked: the host was busy with another benchdash installation (%(installation)s), and nothing runs beside "
    "its trial. Check again once it is free."
)
# A verdict in a word, for a table cell (the study's quality against the rules).
VERDICT_WORDS = {"quiet": _("quiet"), "some_noise": _("some noise"), "noisy": _("noisy"), "unknown": _("not checked")}
FINDINGS = {
    "governor": _("CPU frequency governor %(governors)s, not performance: the clock follows the load."),
    "turbo": _("Turbo boost on: the clock depends on temperature and on how many cores are busy."),
    "thp": _("Transparent huge pages: always. Compaction can stall a run; madvise or never is steadier."),
    "swap_used": _("%(mb)s MB of swap in use."),
    "load": _("Load average %(load)s on %(cpus)s CPUs: other work runs on the host."),
    "swapping": _("Swapping now: %(pages)s pages in the sampled window."),
    "busy": _("%(count)s busy processes during the sampled window: %(processes)s."),
    "micro_spread": _("Spread of the micro-run: %(cv_percent)s%% over %(runs)s runs (a quiet host: under 1%%)."),
}


@dataclass(frozen=True)
class NoiseSummary:
    verdict: str
    label: str | Promise
    findings: list[tuple[str, str]]  # level, sentence
    facts: list[tuple[str | Promise, str]]
    checked_at: datetime | None
    error: str


def noise_summary(report: dict[str, Any]) -> NoiseSummary | None:
    """None when there is no report (never checked)."""
    if not report:
        return None
    verdict = str(report.get("verdict", "unknown"))
    findings = [
        (finding["level"], str(FINDINGS[finding["code"]] % finding.get("params", {})))
        for finding in report.get("findings", [])
        if finding.get("code") in FINDINGS
    ]
    checked = parse_datetime(report["checked_at"]) if report.get("checked_at") else None
    if report.get("busy_with"):  # the lock's holder, never the engine's English
        return NoiseSummary(verdict, BUSY % {"installation": report["busy_with"]}, [], [], checked, "")
    return NoiseSummary(
        verdict,
        VERDICTS.get(verdict, VERDICTS["unknown"]),
        findings,
        _facts(report.get("facts") or {}),
        checked,
        str(report.get("error", "")),
    )


def _facts(facts: dict[str, Any]) -> list[tuple[str | Promise, str]]:
    if not facts:
        return []
    unknown = str(_("not exposed"))
    governors = ", ".join(f"{name} × {count}" for name, count in sorted(facts.get("governors", {}).items()))
    turbo = {True: str(_("on")), False: str(_("off")), None: unknown}[facts.get("turbo")]
    load = facts.get("load")
    micro = facts.get("micro_us") or []
    cv = facts.get("micro_cv")
    micro_text = (
        f"{statistics.median(micro) / 1000:.1f} ms, {cv * 100:.1f}% ({len(micro)})" if micro and cv is not None else "—"
    )
    return [
        (_("CPUs"), str(facts.get("cpus") or "—")),
        (_("CPU frequency governor"), governors or unknown),
        (_("Turbo boost"), turbo),
        (_("Transparent huge pages"), facts.get("thp") or unknown),
        (_("Load average (1, 5, 15 min)"), ", ".join(map(str, load)) if load else "—"),
        (_("Swap in use"), "—" if facts.get("swap_used_kb") is None else f"{facts['swap_used_kb'] // 1024} MB"),
        (_("Micro-run: median, spread (runs)"), micro_text),
    ]
