"""`manage.py refresh_changes`: recompute the change points of every series, as the queue's task `changes_refresh`
does whenever a series changes; for when the queue was down at such a moment. Prints how many changes there are."""

from typing import Any

from django.core.management.base import BaseCommand

from benchdash.changes.refresh import changes_refresh


class Command(BaseCommand):
    help = "Recompute the change points of every series."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(changes_refresh()))
