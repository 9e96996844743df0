"""`python manage.py pgbench_parse FILE...`: one JSON object per file, one per line.

A file may hold pgbench's stdout followed by its stderr. A file with no pgbench result gets an "error" key,
and the command then exits 1.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from workers.pgbench import PgbenchOutputError, parse_pgbench_output


class Command(BaseCommand):
    help = "Parse pgbench output files and print one JSON object per file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args: object, **options: object) -> None:
        files = options["files"]
        assert isinstance(files, list)
        failed = 0
        for path in files:
            record = parsed_file(path)
            failed += "error" in record
            self.stdout.write(json.dumps(record, ensure_ascii=False))
        if failed:
            raise CommandError(f"{failed} of {len(files)} file(s) hold no pgbench result")


def parsed_file(path: str) -> dict[str, object]:
    """The JSON record of one file: its result, or an "error" key saying why there is none."""
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
        return {"file": path, **parse_pgbench_output(text).to_dict()}
    except (OSError, PgbenchOutputError) as error:
        return {"file": path, "error": str(error)}
