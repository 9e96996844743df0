"""`manage.py refresh_changes`: recompute the change points of every series (what a study's end does), e.g. after
an import or after marking studies official. Prints how many changes there are."""

from typing import Any

from django.core.management.base import BaseCommand

from benchdash.changes.refresh import changes_refresh


class Command(BaseCommand):
    help = "Recompute the change points of every series."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(changes_refresh()))
