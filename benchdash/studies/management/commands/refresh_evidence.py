"""`manage.py refresh_evidence [--study ID]`: summarise the trials' stored artifacts again.

For trials stored before the evidence summaries existed, or after the summaries changed: every finished
measured trial of every study, or of one, read back from storage (local disk or S3).
"""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Study, Trial


class Command(BaseCommand):
    help = "Recompute the evidence summaries (CPU, wait events, perf, progress) from the trials' stored artifacts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--study", type=int, metavar="ID", help="only this study (default: every study)")

    def handle(self, *args: object, study: int | None = None, **options: object) -> None:
        trials = Trial.objects.filter(published=False).exclude(status__in=(Trial.Status.PENDING, Trial.Status.RUNNING))
        if study is not None:
            if not Study.objects.filter(pk=study).exists():
                raise CommandError(f"no study with id {study}")
            trials = trials.filter(study_id=study)
        count = 0
        for trial in trials.select_related("study").order_by("study_id", "position").iterator(chunk_size=200):
            if evidence_refresh(trial=trial) is not None:
                count += 1
        self.stdout.write(f"{count} trials summarised")
