"""`manage.py import_results FILE.csv [--encoding ENC]`: import published results, all rows or none."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.trends.encodings import ENCODINGS
from benchdash.trends.importer import COLUMNS, ImportRejected, import_published_results


class Command(BaseCommand):
    help = f"Import published results from a CSV file with the columns: {', '.join(COLUMNS)}."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="CSV file (UTF-8, UTF-8 with BOM or Shift_JIS/cp932)")
        parser.add_argument(
            "--encoding", choices=ENCODINGS, help="read the file with this encoding instead of detecting it"
        )

    def handle(self, *args: object, **options: object) -> None:
        path = options["file"]
        assert isinstance(path, Path)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error}") from error
        try:
            summary = import_published_results(data=data, encoding=options["encoding"])  # type: ignore[arg-type]
        except ImportRejected as rejected:
            raise CommandError(f"{path}: {rejected}") from rejected
        self.stdout.write(f"{path}: {summary}")
