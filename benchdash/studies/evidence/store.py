"""The rows of the evidence: a trial's summary written once when it finishes, and read back for the pages.

evidence_refresh is called from trial_finish with the outcome's artifacts in hand, and by
`manage.py refresh_evidence` with the artifacts read back from storage (local disk or S3).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.db.models.fields.json import KeyTextTransform

from benchdash.studies.evidence.compare import EvidenceRow
from benchdash.studies.evidence.summary import TrialSummary, summarize_trial
from benchdash.studies.models import Artifact, Study, Trial, TrialEvidence
from benchdash.studies.results.lines import study_lines
from workers.attempt import PROFILED_REPETITION  # perf runs beside this repetition only

logger = logging.getLogger(__name__)
EVIDENCE_KINDS = ("progress", "sar_series", "wait_events", "perf_folded", "table_health")

# What a page aggregating a study reads: not the per-second series nor the perf lists.
LIGHT_FIELDS = (
    "trial_id",
    "collectors",
    "cpus",
    "cpu_user",
    "cpu_system",
    "cpu_iowait",
    "cpu_steal",
    "cpu_idle",
    "cpu_ms_per_transaction",
    "disk_util_percent",
    "disk_await_ms",
    "wait_samples",
    "wait_events",
    "tps_cv",
    "unstable",
)


def evidence_refresh(*, trial: Trial, artifacts: Mapping[str, bytes] | None = None) -> TrialEvidence | None:
    """Summarise a measured trial's artifacts into its TrialEvidence row (made or replaced); nothing for a
    published figure, or an attempt that goes back to pending (the next one writes the row).

    artifacts: kind -> bytes as the outcome brought them; None reads the trial's stored files. A summary
    that fails (a file the parsers do not understand) is logged and leaves a row that says so: the
    trial itself is never lost over its evidence.
    """
    if trial.published or trial.status in (Trial.Status.PENDING, Trial.Status.RUNNING):
        return None
    study = trial.study
    if artifacts is None:
        artifacts = stored_artifacts(trial)
    failure = ""
    try:
        summary = summarize_trial(
            artifacts, transactions=trial.transactions, duration_s=_measured_seconds(trial, study)
        )
    except Exception as error:  # pure computation over a file: whatever it hits must not cost the trial
        logger.warning("evidence of trial %s could not be summarised", trial.pk, exc_info=True)
        summary, failure = TrialSummary(), f"the summary failed: {type(error).__name__}: {error}"
    fields = evidence_fields(summary)
    fields["collectors"] = collector_states(trial, study, summary, failure)
    evidence, _created = TrialEvidence.objects.update_or_create(trial=trial, defaults=fields)
    return evidence


def stored_artifacts(trial: Trial) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for artifact in Artifact.objects.filter(trial=trial, kind__in=EVIDENCE_KINDS):
        with artifact.file.open("rb") as handle:
            found[artifact.kind] = handle.read()
    return found


def _measured_seconds(trial: Trial, study: Study) -> float | None:
    """How long pgbench measured: transactions / TPS when it said both, else the study's duration."""
    if trial.transactions and trial.tps:
        return trial.transactions / trial.tps
    return float(study.duration_s) if study.duration_s else None


def evidence_fields(summary: TrialSummary) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "series": summary.series,
        "cpu_ms_per_transaction": summary.cpu_ms_per_transaction,
        "table_health": summary.table_health,
    }
    progress, sar, waits, perf = summary.progress, summary.sar, summary.waits, summary.perf
    fields.update(
        progress_seconds=progress.seconds if progress else 0,
        tps_cv=progress.tps_cv if progress else None,
        warmup_s=progress.warmup_s if progress else None,
        unstable=bool(progress and progress.unstable),
        cpus=sar.cpus if sar else None,
        disk_device=sar.disk_device if sar else "",
        disk_util_percent=sar.disk_util_percent if sar else None,
        disk_await_ms=sar.disk_await_ms if sar else None,
        memory_used_percent=sar.memory_used_percent if sar else None,
        wait_samples=waits.samples if waits else 0,
        wait_events=waits.counts if waits else [],
        perf_samples=perf.samples if perf else 0,
        perf_self=[share.to_dict() for share in perf.self_shares] if perf else [],
        perf_children=[share.to_dict() for share in perf.children_shares] if perf else [],
        perf_flame=perf.flame if perf else {},
    )
    for name in ("user", "system", "iowait", "steal", "idle"):
        fields[f"cpu_{name}"] = sar.cpu.get(name) if sar else None
    return fields


def collector_states(trial: Trial, study: Study, summary: TrialSummary, failure: str = "") -> dict[str, dict[str, str]]:
    """Per collector: ok, off (the study did not ask), not_profiled (perf: not the first repetition), or
    no_data with the reason the engine noted ("sar: skipped, not installed on the host")."""
    wanted = {
        "progress": True,
        "sar": study.collect_sar,
        "wait_events": study.collect_wait_events,
        "perf": study.collect_perf,
        "table_health": True,
    }
    present = {
        "progress": summary.progress is not None,
        "sar": summary.sar is not None,
        "wait_events": summary.waits is not None,
        "perf": summary.perf is not None,
        "table_health": bool(summary.table_health),
    }
    states: dict[str, dict[str, str]] = {}
    for name, on in wanted.items():
        if present[name]:
            states[name] = {"state": TrialEvidence.State.OK, "reason": ""}
        elif not on:
            states[name] = {"state": TrialEvidence.State.OFF, "reason": ""}
        elif name == "perf" and trial.repetition != PROFILED_REPETITION:
            states[name] = {"state": TrialEvidence.State.NOT_PROFILED, "reason": ""}
        else:
            states[name] = {"state": TrialEvidence.State.NO_DATA, "reason": failure or _reason(trial, name)}
    return states


def _reason(trial: Trial, collector: str) -> str:
    """The engine's notes about this collector, or what the trial's error says."""
    prefix = "pgbench" if collector == "progress" else collector
    lines = [line for line in trial.notes.splitlines() if line.startswith(prefix) and "from an extra" not in line]
    if lines:
        return "; ".join(lines)
    if collector == "perf" and trial.status != Trial.Status.SUCCEEDED:
        return "no profiled run: the measured run did not succeed"
    if trial.error:
        return trial.error
    return "pgbench printed no progress line" if collector == "progress" else "no file was stored"


def evidence_rows(study: Study) -> list[EvidenceRow]:
    """The light part of every measured trial's evidence in a study, as plain rows; a warm-up run's is left out, as
    its TPS is of the points its rows are summarised beside."""
    line = f"trial__{study_lines(study).trial_field}"
    values = (
        TrialEvidence.objects.filter(trial__study=study, trial__warmup=False)
        .order_by("trial__position", "trial_id")
        .values(*LIGHT_FIELDS, "trial__position", line, "trial__scenario_id", "trial__clients", "trial__repetition")
    )
    return [
        EvidenceRow(
            trial_id=row["trial_id"],
            position=row["trial__position"],
            build_id=row[line],
            scenario_id=row["trial__scenario_id"],
            clients=row["trial__clients"],
            repetition=row["trial__repetition"],
            collectors=row["collectors"],
            cpus=row["cpus"],
            cpu={name: row[f"cpu_{name}"] for name in ("user", "system", "iowait", "steal", "idle")},
            cpu_ms_per_transaction=row["cpu_ms_per_transaction"],
            disk_util_percent=row["disk_util_percent"],
            disk_await_ms=row["disk_await_ms"],
            wait_samples=row["wait_samples"],
            wait_events=row["wait_events"],
            tps_cv=row["tps_cv"],
            unstable=row["unstable"],
        )
        for row in values
    ]


def perf_levels(study: Study) -> dict[int, list[int]]:
    """scenario_id -> the client levels that have a perf profile."""
    levels: dict[int, set[int]] = {}
    rows = TrialEvidence.objects.filter(trial__study=study, perf_samples__gt=0).values_list(
        "trial__scenario_id", "trial__clients"
    )
    for scenario_id, clients in rows:
        levels.setdefault(scenario_id, set()).add(clients)
    return {scenario_id: sorted(found) for scenario_id, found in levels.items()}


def perf_profiles(study: Study, scenario_id: int, clients: int) -> dict[int, dict[str, Any]]:
    """line id (the build's, or in a variant study the variant's) -> the perf summary of its profiled trial at this
    scenario and client level (the one with the most samples when several were profiled)."""
    line = f"trial__{study_lines(study).trial_field}"
    rows = (
        TrialEvidence.objects.filter(
            trial__study=study, trial__scenario_id=scenario_id, trial__clients=clients, perf_samples__gt=0
        )
        .order_by(line, "-perf_samples")
        .values(
            "trial_id",
            line,
            "perf_samples",
            "perf_self",
            "perf_children",
            "perf_flame",
            symbols=KeyTextTransform("symbols", "trial__host_facts"),
        )
    )
    profiles: dict[int, dict[str, Any]] = {}
    for row in rows:
        profiles.setdefault(row[line], dict(row))
    return profiles
