"""The database side of the explanation card: each side's evidence, read as the study pages read it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from benchdash.changes.explanation import Moved, SideEvidence, explain
from benchdash.changes.models import ChangePoint
from benchdash.changes.sides import line_ref
from benchdash.studies.evidence.compare import EvidencePoint, evidence_points
from benchdash.studies.evidence.store import evidence_rows, perf_profiles
from benchdash.studies.evidence.table_health import study_table_health
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.settings_diff import ENGINE_OWN
from workers.facts import MOMENTARY_FACTS

# What a trial's environment is, besides its settings: the versions it ran and the DB host's facts.
ENVIRONMENT_FIELDS = ("server_version", "pgbench_version")


@dataclass(frozen=True)
class Side:
    """One line of a study at one scenario and client level: its build, and in a study whose lines are variants its
    variant (two variants of one build are two sides, each with its own evidence); no variant there: the build's first,
    the line that line_ref names."""

    study: Study
    build_id: int
    scenario_id: int
    clients: int
    variant_id: int | None = None


@dataclass(frozen=True)
class SideLine:
    """What the side's study keys its evidence by (study_lines): the variant's id in a study of variants, else the
    build's; and that variant's label, which its table health is named by."""

    line_id: int | None
    variant_id: int | None = None
    variant_label: str = ""


def change_card(change: ChangePoint) -> list[Moved] | None:
    """What moved between the change's two sides; None where a side is not one measured build of a study, or neither
    side's trials left any evidence (a published study's figures)."""
    sides = change_sides(change)
    if sides is None:
        return None
    before, after = (side_evidence(side) for side in sides)
    return explain(before, after) if before != SideEvidence() or after != SideEvidence() else None


def compare_query(change: ChangePoint) -> str:
    """The query of the comparison page of the change's two sides (`a=...&b=...`); empty where a side is not one
    build of a study."""
    if not (change.before_study and change.after_study and change.before_build_id and change.after_build_id):
        return ""
    refs = line_ref(change.before_study, change.before_build_id), line_ref(change.after_study, change.after_build_id)
    return "" if None in refs else urlencode({"a": refs[0], "b": refs[1]})


def change_sides(change: ChangePoint) -> tuple[Side, Side] | None:
    """Both sides at the change's client level (a trend change: the highest level both sides measured)."""
    if not (change.before_study and change.after_study and change.before_build_id and change.after_build_id):
        return None
    if change.scenario_id is None:
        return None
    before = Side(change.before_study, change.before_build_id, change.scenario_id, change.clients or 0)
    after = Side(change.after_study, change.after_build_id, change.scenario_id, change.clients or 0)
    clients = change.clients or max(_levels(before) & _levels(after), default=None)
    if clients is None:
        return None
    return replace(before, clients=clients), replace(after, clients=clients)


def _levels(side: Side) -> set[int]:
    trials = Trial.objects.filter(study=side.study, build_id=side.build_id, scenario_id=side.scenario_id)
    return set(trials.values_list("clients", flat=True))


def side_evidence(side: Side) -> SideEvidence:
    line = side_line(side)
    if line.line_id is None:  # a study of variants with none of this build: no trial of it
        return SideEvidence()
    point = evidence_points(evidence_rows(side.study)).get((side.scenario_id, line.line_id, side.clients))
    profile = perf_profiles(side.study, side.scenario_id, side.clients).get(line.line_id)
    trial = _first_trial(side, line)
    return SideEvidence(
        cpu=_cpu(point),
        waits=_waits(point),
        functions={row["function"]: 100.0 * row["share"] for row in (profile or {}).get("perf_self", [])},
        table_health=_table_health(side, line),
        settings=_settings(trial),
        environment=_environment(trial),
    )


def side_line(side: Side) -> SideLine:
    if not study_lines(side.study).by_variant:
        return SideLine(side.build_id)
    variants = side.study.variants.filter(build_id=side.build_id).order_by("pk")
    if side.variant_id is not None:
        variants = variants.filter(pk=side.variant_id)
    variant = variants.values_list("pk", "label").first()
    return SideLine(variant[0], variant[0], variant[1]) if variant else SideLine(None)


def _cpu(point: EvidencePoint | None) -> dict[str, float]:
    return {name: value for name, value in (point.cpu if point else {}).items() if value is not None}


def _waits(point: EvidencePoint | None) -> dict[str, float]:
    shares = point.wait_shares() if point else {}
    return {f"{kind}: {event}": 100.0 * share for (kind, event), share in shares.items()}


def _table_health(side: Side, line: SideLine) -> dict[str, float]:
    figures: dict[str, float] = {}
    for row in study_table_health(side.study):
        named = row.variant == line.variant_label if line.variant_id else row.build == _build_name(side)
        if row.clients != side.clients or not named:
            continue
        for name in ("dead_share_after", "hot_share"):
            if (value := row.figures.get(name)) is not None:
                figures[f"{row.relation} {name.replace('_', ' ')}"] = 100.0 * value
    return figures


def _build_name(side: Side) -> str:
    return side.study.builds.filter(pk=side.build_id).values_list("name", flat=True).first() or ""


def _first_trial(side: Side, line: SideLine) -> Trial | None:
    trials = Trial.objects.filter(
        study=side.study, build_id=side.build_id, scenario_id=side.scenario_id, status=Trial.Status.SUCCEEDED
    )
    if line.variant_id is not None:
        trials = trials.filter(variant_id=line.variant_id)
    return trials.order_by("position").first()


def _settings(trial: Trial | None) -> dict[str, str]:
    return {name: value for name, value in (trial.server_settings if trial else {}).items() if name not in ENGINE_OWN}


def _environment(trial: Trial | None) -> dict[str, str]:
    if trial is None:
        return {}
    facts: dict[str, Any] = trial.host_facts or {}
    found = {name: str(getattr(trial, name)) for name in ENVIRONMENT_FIELDS if getattr(trial, name)}
    lasting = {name: value for name, value in facts.items() if name not in MOMENTARY_FACTS}
    return found | {f"host {name}": str(value) for name, value in lasting.items() if not isinstance(value, dict | list)}
