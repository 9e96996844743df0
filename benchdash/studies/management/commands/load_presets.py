"""`manage.py load_presets`: write the seeds' scenarios and study presets, then the published history.

Idempotent: a row that already holds the preset's values is left alone, one that differs is updated.
"""

from dataclasses import asdict
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from benchdash.studies.models import Scenario, StudyPreset
from benchdash.studies.presets import SCENARIOS, STUDY_PRESETS, ScenarioPreset, StudyPresetData
from benchdash.trends.importer import ImportRejected, import_published_results

PresetModel = TypeVar("PresetModel", Scenario, StudyPreset)
PUBLISHED_RESULTS = Path(settings.BASE_DIR) / "data" / "published_results.csv"


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


def sync_scenario(preset: ScenarioPreset) -> str:
    values = asdict(preset)
    slug = values.pop("slug")
    _, action = _sync_fields(Scenario, slug, values)
    return action


def sync_study_preset(preset: StudyPresetData) -> str:
    values = asdict(preset)
    slug = values.pop("slug")
    scenario_slugs = set(values.pop("scenario_slugs"))
    values["client_levels"] = list(values["client_levels"])
    row, action = _sync_fields(StudyPreset, slug, values)
    if set(row.scenarios.values_list("slug", flat=True)) != scenario_slugs:
        row.scenarios.set(Scenario.objects.filter(slug__in=scenario_slugs))
        action = "updated" if action == "left" else action
    return action


class Command(BaseCommand):
    help = "Load the seeds' scenarios and study presets, and import data/published_results.csv."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--results", default=str(PUBLISHED_RESULTS), help="published results CSV to import")

    def handle(self, *args: object, **options: object) -> None:
        verbose = int(str(options["verbosity"])) > 1
        with transaction.atomic():
            actions = [(f"scenario {preset.slug}", sync_scenario(preset)) for preset in SCENARIOS]
            actions += [(f"study preset {preset.slug}", sync_study_preset(preset)) for preset in STUDY_PRESETS]
        for name, action in actions:
            if verbose or action != "left":
                self.stdout.write(f"{name}: {action}")
        unchanged = sum(action == "left" for _, action in actions)
        self.stdout.write(f"presets: {len(actions) - unchanged} created or updated, {unchanged} unchanged")
        self._import_history(Path(str(options["results"])))

    def _import_history(self, path: Path) -> None:
        try:
            summary = import_published_results(data=path.read_bytes())
        except ImportRejected as rejected:
            raise CommandError(f"{path}: {rejected}") from rejected
        self.stdout.write(f"published results {path.name}: {summary}")
