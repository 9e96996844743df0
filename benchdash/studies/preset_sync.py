"""The seeds' scenarios and study presets (data/presets.toml and data/variant_presets.toml, read by seed_data)
written into the store; idempotent: a row that already holds the preset's values is left alone, one that differs is
updated."""

from dataclasses import asdict
from typing import Any, TypeVar

from django.db import transaction

from benchdash.studies.models import Scenario, StudyPreset
from benchdash.studies.seed_data import (
    SCENARIOS,
    STUDY_PRESETS,
    VARIANT_PRESETS,
    VARIANT_SCENARIOS,
    ScenarioPreset,
    StudyPresetData,
)

PresetModel = TypeVar("PresetModel", Scenario, StudyPreset)


def _sync_fields(model: type[PresetModel], slug: str, values: dict[str, object]) -> tuple[PresetModel, str]:
    """Create the row with this slug, or update the fields that differ; say which happened."""
    row = model.objects.filter(slug=slug).first()
    if row is None:
        return model.objects.create(slug=slug, **values), "created"
    changed = [name for name, value in values.items() if getattr(row, name) != value]
    for name in changed:
        setattr(row, name, values[name])
    if changed:
        row.save(update_fields=changed)
    return row, "updated" if changed else "left"


def _row_values(preset: ScenarioPreset | StudyPresetData) -> tuple[str, dict[str, Any]]:
    """The preset's slug and its row's other fields: where in the seeds it comes from stays in data/."""
    values = asdict(preset)
    for cited in ("seed", "line"):
        del values[cited]
    return values.pop("slug"), values


def sync_scenario(preset: ScenarioPreset) -> str:
    slug, values = _row_values(preset)
    _, action = _sync_fields(Scenario, slug, values)
    return action


def sync_study_preset(preset: StudyPresetData) -> str:
    slug, values = _row_values(preset)
    scenario_slugs = set(values.pop("scenario_slugs"))
    values["client_levels"] = list(values["client_levels"])
    row, action = _sync_fields(StudyPreset, slug, values)
    if set(row.scenarios.values_list("slug", flat=True)) != scenario_slugs:
        row.scenarios.set(Scenario.objects.filter(slug__in=scenario_slugs))
        action = "updated" if action == "left" else action
    return action


@transaction.atomic
def presets_sync() -> list[tuple[str, str]]:
    """Write every preset; returns (what, "created" | "updated" | "left") for each."""
    actions = [(f"scenario {preset.slug}", sync_scenario(preset)) for preset in (*SCENARIOS, *VARIANT_SCENARIOS)]
    presets = (*STUDY_PRESETS, *VARIANT_PRESETS)
    actions += [(f"study preset {preset.slug}", sync_study_preset(preset)) for preset in presets]
    return actions
