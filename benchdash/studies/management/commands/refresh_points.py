"""`manage.py refresh_points [--study ID]`: recompute the study points from the trials.

For after a bulk load that went around the services (COPY, SQL by hand): every study, or one.
"""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.studies.models import Study
from benchdash.studies.results.store import points_refresh


class Command(BaseCommand):
    help = "Recompute the study points (median, min, max, n per build x scenario x clients) from the trials."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--study", type=int, metavar="ID", help="only this study (default: every study)")

    def handle(self, *args: object, study: int | None = None, **options: object) -> None:
        studies = Study.objects.order_by("pk")
        if study is not None:
            studies = studies.filter(pk=study)
            if not studies.exists():
                raise CommandError(f"no study with id {study}")
        total = 0
        for study_id in studies.values_list("pk", flat=True):
            count = points_refresh(study_id=study_id)
            total += count
            self.stdout.write(f"study {study_id}: {count} points")
        self.stdout.write(f"{total} points in all")
