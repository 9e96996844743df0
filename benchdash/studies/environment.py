"""The environment a study's trials ran in, and what differs between its builds (or variants), or between two studies
(the trends page: a link and the one before it in the chained index): each trial keeps an
environment fingerprint in its host facts (workers/facts.py: kernel, CPU model and microcode, governor, turbo,
transparent huge pages, NUMA nodes; the build's configure options from pg_config, and whether its server binary
has symbols or debug symbols found by its build ID) and its pgbench version.

A difference between the builds of one study is a second explanation of a ratio besides the builds themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import Study, Trial
from benchdash.studies.results.tables import column_order

FINGERPRINT = {
    "kernel": _("kernel"),
    "cpu_model": _("CPU model"),
    "microcode": _("CPU microcode"),
    "cpu_governor": _("CPU frequency governor"),
    "turbo": _("turbo"),
    "transparent_hugepages": _("transparent huge pages"),
    "numa_nodes": _("NUMA nodes"),
    "pgbench": _("pgbench"),
    "configure": _("configure options (pg_config)"),
    "symbols": _("server symbols (what perf can name)"),
}


@dataclass(frozen=True)
class EnvironmentRow:
    label: str | Promise
    values: list[str]


@dataclass(frozen=True)
class EnvironmentDiff:
    """The fingerprint keys whose values differ between the study's builds (or variants), and those that agree."""

    columns: list[str]
    differing: list[EnvironmentRow]
    agreeing: list[str | Promise]


def fingerprint(trial: Trial) -> dict[str, str]:
    """A trial's environment fingerprint: each FINGERPRINT key as text ("—" where it was not read)."""
    facts = dict(trial.host_facts or {})
    facts["pgbench"] = trial.pgbench_version or facts.get("pgbench")
    return {key: "—" if facts.get(key) in (None, "") else str(facts[key]) for key in FINGERPRINT}


def study_environment(study: Study) -> EnvironmentDiff | None:
    """The latest fingerprint of each build (each variant, where the study has several) side by side; None without
    two measured ones to compare."""
    trials = (
        study.trials.filter(published=False, status=Trial.Status.SUCCEEDED)
        .exclude(host_facts={})
        .select_related("build", "variant")
        .order_by("finished_at", "pk")
    )
    latest = {_column(trial): trial for trial in trials}
    if len(latest) < 2:
        return None
    ordered = sorted(latest.items(), key=lambda item: _column_order(item[1], study.baseline_id))
    prints = {column: fingerprint(trial) for column, trial in ordered}
    columns = list(prints)
    differing: list[EnvironmentRow] = []
    agreeing: list[str | Promise] = []
    for key, label in FINGERPRINT.items():
        values = [prints[column][key] for column in columns]
        if len(set(values)) > 1:
            differing.append(EnvironmentRow(label, values))
        else:
            agreeing.append(label)
    return EnvironmentDiff(columns, differing, agreeing)


def study_fingerprints(study_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """Each study's fingerprint: that of its latest succeeded measured trial that read the host's facts."""
    trials = (
        Trial.objects.filter(study_id__in=set(study_ids), published=False, status=Trial.Status.SUCCEEDED)
        .exclude(host_facts={})
        .order_by("finished_at", "pk")
    )
    return {trial.study_id: fingerprint(trial) for trial in trials}


def differing_labels(first: Mapping[str, str], second: Mapping[str, str]) -> list[str | Promise]:
    """The fingerprint keys both know and that differ, as labels."""
    known = [key for key in FINGERPRINT if "—" not in (first.get(key, "—"), second.get(key, "—"))]
    return [FINGERPRINT[key] for key in known if first[key] != second[key]]


def _column(trial: Trial) -> str:
    return str(trial.variant) if trial.variant_id else trial.build.name


def _column_order(trial: Trial, baseline_build_id: int | None) -> tuple[bool, int, str]:
    """The results tables' order (results/tables.py)."""
    is_baseline = trial.variant.baseline if trial.variant is not None else trial.build_id == baseline_build_id
    return column_order(is_baseline, trial.build.version, _column(trial))
