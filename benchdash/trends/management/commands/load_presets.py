"""`manage.py load_presets`: write the seeds' scenarios and study presets, then the published history.

Idempotent: a row that already holds the preset's values is left alone, one that differs is updated.
It lives in the trends app because it writes both: the presets (benchdash.studies) and the history
(benchdash.trends.importer); studies never imports trends.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.studies.preset_sync import presets_sync
from benchdash.trends.conclusions import load_published_conclusions
from benchdash.trends.importer import ImportRejected, import_published_results

PUBLISHED_RESULTS = Path(settings.BASE_DIR) / "data" / "published_results.csv"
PUBLISHED_CONCLUSIONS = Path(settings.BASE_DIR) / "data" / "published_conclusions.csv"


class Command(BaseCommand):
    help = (
        "Load the seeds' scenarios and study presets, import data/published_results.csv, and put the seeds' "
        "conclusions (data/published_conclusions.csv) with their studies."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--results", default=str(PUBLISHED_RESULTS), help="published results CSV to import")

    def handle(self, *args: object, **options: object) -> None:
        verbose = int(str(options["verbosity"])) > 1
        actions = presets_sync()
        for name, action in actions:
            if verbose or action != "left":
                self.stdout.write(f"{name}: {action}")
        unchanged = sum(action == "left" for _, action in actions)
        self.stdout.write(f"presets: {len(actions) - unchanged} created or updated, {unchanged} unchanged")
        self._import_history(Path(str(options["results"])))
        written = load_published_conclusions(PUBLISHED_CONCLUSIONS.read_bytes())
        self.stdout.write(f"published conclusions {PUBLISHED_CONCLUSIONS.name}: {written} written")

    def _import_history(self, path: Path) -> None:
        try:
            summary = import_published_results(data=path.read_bytes())
        except ImportRejected as rejected:
            raise CommandError(f"{path}: {rejected}") from rejected
        self.stdout.write(f"published results {path.name}: {summary}")
