"""The evidence as CSV rows and JSON: what every evidence chart draws, per build x clients and per trial.

Column headers are a stable interface (docs/CSV.md): columns may be added at the end, never renamed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from django.db.models import F

from benchdash.inventory.models import Build
from benchdash.studies.evidence.bottleneck import cpu_busy
from benchdash.studies.evidence.compare import EvidencePoint, evidence_points
from benchdash.studies.evidence.store import evidence_rows
from benchdash.studies.evidence.summary import CPU_FIELDS
from benchdash.studies.evidence.table_health import FIGURES, study_table_health
from benchdash.studies.models import Scenario, Study, TrialEvidence, Variant
from benchdash.studies.results.lines import study_lines

EVIDENCE_HEADER = (
    "study_id",
    "scenario",
    "build",
    "build_version",
    "baseline",
    "clients",
    "trials",
    "cpu_user",
    "cpu_system",
    "cpu_iowait",
    "cpu_steal",
    "cpu_idle",
    "cpu_busy",
    "cpu_ms_per_transaction",
    "disk_util_percent",
    "disk_await_ms",
    "wait_samples",
    "active_backends",
    "tps_cv_max",
    "unstable_trials",
    "bottleneck",
    "bottleneck_rule",
    "bottleneck_value",
    "bottleneck_threshold",
)
WAIT_EVENTS_HEADER = (
    "study_id",
    "scenario",
    "build",
    "build_version",
    "clients",
    "wait_event_type",
    "wait_event",
    "count",
    "share",
)
PERF_HEADER = (
    "study_id",
    "scenario",
    "build",
    "build_version",
    "clients",
    "repetition",
    "trial_id",
    "samples",
    "measure",
    "rank",
    "function",
    "share",
)
TABLE_HEALTH_HEADER = (
    "study_id",
    "scenario",
    "variant",
    "build",
    "build_version",
    "clients",
    "relation",
    "table",
    "kind",
    "trials",
    *FIGURES,
)
SERIES_HEADER = (
    "second",
    "tps",
    "latency_ms",
    "cpu_user",
    "cpu_system",
    "cpu_iowait",
    "cpu_steal",
    "cpu_idle",
    "disk_util_percent",
    "disk_await_ms",
    "memory_used_percent",
    "active_backends",
)


class Names:
    """Line and scenario names of a study, read once: a line is a build, or in a variant study a variant
    (results/lines.py), named by its label and its build's version."""

    def __init__(self, study: Study) -> None:
        lines = study_lines(study)
        if lines.by_variant:
            variants = Variant.objects.filter(study=study).select_related("build")
            self.lines = {variant.pk: (variant.label, variant.build.version) for variant in variants}
        else:
            self.lines = {build.pk: (build.name, build.version) for build in Build.objects.filter(studies=study)}
        self.scenarios = dict(Scenario.objects.filter(studies=study).values_list("pk", "slug"))
        self.baseline_id = lines.baseline_id

    def build(self, line_id: int) -> tuple[str, str]:
        return self.lines.get(line_id, ("", ""))


def study_points(study: Study) -> list[EvidencePoint]:
    points = evidence_points(evidence_rows(study)).values()
    return sorted(points, key=lambda point: (point.scenario_id, point.clients, point.build_id))


def evidence_csv_rows(study: Study) -> Iterator[tuple[Any, ...]]:
    names = Names(study)
    for point in study_points(study):
        verdict = point.verdict
        yield (
            study.pk,
            names.scenarios.get(point.scenario_id, ""),
            *names.build(point.build_id),
            point.build_id == names.baseline_id,
            point.clients,
            point.trials,
            *(_round(point.cpu.get(name)) for name in CPU_FIELDS),
            _round(cpu_busy(point.cpu.get("idle"), point.cpu.get("iowait"))),
            _round(point.cpu_ms_per_transaction, 5),
            _round(point.disk_util_percent),
            _round(point.disk_await_ms, 4),
            point.wait_samples,
            _round(point.active_backends, 4),
            _round(point.tps_cv_max, 5),
            point.unstable_trials,
            str(verdict.label),
            verdict.rule,
            _round(verdict.figures.get("value")),
            _round(verdict.figures.get("threshold")),
        )


def wait_event_csv_rows(study: Study) -> Iterator[tuple[Any, ...]]:
    names = Names(study)
    for point in study_points(study):
        shares = point.wait_shares()
        for (kind, event), count in sorted(point.wait_counts.items(), key=lambda item: -item[1]):
            yield (
                study.pk,
                names.scenarios.get(point.scenario_id, ""),
                *names.build(point.build_id),
                point.clients,
                kind,
                event,
                count,
                _round(shares.get((kind, event)), 6),
            )


def perf_csv_rows(study: Study) -> Iterator[tuple[Any, ...]]:
    names = Names(study)
    line = f"trial__{study_lines(study).trial_field}"
    rows = (
        TrialEvidence.objects.filter(trial__study=study, perf_samples__gt=0)
        .order_by("trial__scenario_id", "trial__clients", line, "trial__repetition")
        .values_list(
            "trial_id",
            "trial__scenario_id",
            line,
            "trial__clients",
            "trial__repetition",
            "perf_samples",
            "perf_self",
            "perf_children",
        )
    )
    for trial_id, scenario_id, build_id, clients, repetition, samples, own, children in rows.iterator():
        head = (study.pk, names.scenarios.get(scenario_id, ""), *names.build(build_id), clients, repetition, trial_id)
        for measure, ranked in (("self", own), ("children", children)):
            for rank, entry in enumerate(ranked, start=1):
                yield (*head, samples, measure, rank, entry["function"], entry["share"])


def table_health_csv_rows(study: Study) -> Iterator[tuple[Any, ...]]:
    for row in study_table_health(study):
        head = (study.pk, row.scenario, row.variant, row.build, row.build_version, row.clients)
        figures = (_round(row.figures[name], 4) for name in FIGURES)
        yield (*head, row.relation, row.table, row.kind, row.trials, *figures)


def series_csv_rows(series: Mapping[str, Any]) -> Iterator[tuple[Any, ...]]:
    """A row per second of the run: the progress line, the sar sample and the wait sample closing it."""
    by_second: dict[int, dict[str, Any]] = {}

    def put(times: list, column: str, values: list) -> None:
        for second, value in zip(times, values, strict=False):
            by_second.setdefault(round(second), {})[column] = value

    progress, sar, waits = series.get("progress") or {}, series.get("sar") or {}, series.get("waits") or {}
    if progress:
        put(progress["t"], "tps", progress["tps"])
        put(progress["t"], "latency_ms", progress["latency_ms"])
    if sar:
        for name in CPU_FIELDS:
            put(sar["t"], f"cpu_{name}", sar["cpu"].get(name, []))
        for name in ("disk_util_percent", "disk_await_ms", "memory_used_percent"):
            put(sar["t"], name, sar.get(name, []))
    if waits:
        active = [sum(values) for values in zip(*waits["by_type"].values(), strict=True)] if waits["by_type"] else []
        put(waits["t"], "active_backends", active)
    for second in sorted(by_second):
        yield (second, *(by_second[second].get(column) for column in SERIES_HEADER[1:]))


def study_evidence_json(study: Study) -> dict[str, Any]:
    """Every evidence figure of a study: per build x clients (with wait-event shares), then per trial."""
    names = Names(study)
    points = [dict(zip(EVIDENCE_HEADER, row, strict=True)) for row in evidence_csv_rows(study)]
    waits = [dict(zip(WAIT_EVENTS_HEADER, row, strict=True)) for row in wait_event_csv_rows(study)]
    trials = list(
        TrialEvidence.objects.filter(trial__study=study)
        .order_by("trial__position")
        .values(
            "trial_id",
            "collectors",
            "progress_seconds",
            "tps_cv",
            "warmup_s",
            "unstable",
            "cpu_ms_per_transaction",
            "perf_samples",
            position=F("trial__position"),
            build_id=F("trial__build_id"),
            scenario_id=F("trial__scenario_id"),
            clients=F("trial__clients"),
            repetition=F("trial__repetition"),
        )
    )
    return {
        "study_id": study.pk,
        "study": study.title,
        "baseline": names.build(names.baseline_id)[0] if names.baseline_id else None,
        "points": points,
        "wait_events": waits,
        "perf": [dict(zip(PERF_HEADER, row, strict=True)) for row in perf_csv_rows(study)],
        "trials": trials,
    }


def trial_evidence_json(evidence: TrialEvidence) -> dict[str, Any]:
    fields = [field.name for field in TrialEvidence._meta.concrete_fields if field.name not in ("trial", "computed_at")]
    data = {name: getattr(evidence, name) for name in fields}
    data["trial_id"] = evidence.trial_id
    data["computed_at"] = evidence.computed_at.isoformat()
    return data


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)
