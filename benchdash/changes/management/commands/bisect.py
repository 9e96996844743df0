"""`manage.py bisect`: narrow a change between two minors of one major to adjacent minors, one study per step.

    manage.py bisect --change 12                      # a change point between two minors (its study is the design)
    manage.py bisect --builds 17.0..17.10 --template 7 --scenario pgecons-reference --clients 16

Every minor of the range the npm registry archives is fetched and registered first (a file already there is
reused). Prints the bisect's id; its page (/changes/bisects/<id>/) shows every step as it ends.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.changes.bisects import BisectRefused, bisect_create
from benchdash.changes.models import ChangePoint
from benchdash.inventory.builds import builds_fetch_range
from benchdash.studies.models import Scenario, Study
from workers import npm_archive


class Command(BaseCommand):
    help = "Bisect a change between two minors: queue the studies that narrow it to adjacent minors."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--change", type=int, help="a change point's id")
        parser.add_argument("--builds", default="", help="a range of minors of one major, e.g. 17.0..17.10")
        parser.add_argument("--template", type=int, help="the study whose design (host, procedure) each step takes")
        parser.add_argument("--scenario", default="", help="scenario slug (default: the change's)")
        parser.add_argument("--clients", type=int, help="client level (default: the change's)")

    def handle(self, *args: Any, **options: Any) -> None:
        change = self._change(options["change"])
        text = options["builds"] or (self._range_of(change) if change else "")
        if not text:
            raise CommandError("give --change, or --builds with --template, --scenario and --clients")
        template = self._study(options["template"]) if options["template"] else getattr(change, "after_study", None)
        scenario = self._scenario(options["scenario"]) if options["scenario"] else getattr(change, "scenario", None)
        clients = options["clients"] or getattr(change, "clients", None)
        if template is None or scenario is None or not clients:
            raise CommandError("give --template, --scenario and --clients (the change does not say them)")
        try:
            builds = builds_fetch_range(minors=text)
            bisect = bisect_create(template=template, scenario=scenario, clients=clients, builds=builds, change=change)
        except (npm_archive.ArchiveFetchError, BisectRefused) as error:
            raise CommandError(f"the bisect was not started: {error}") from error
        self.stdout.write(str(bisect.pk))

    def _change(self, pk: int | None) -> ChangePoint | None:
        if pk is None:
            return None
        change = ChangePoint.objects.select_related("before_build", "after_build").filter(pk=pk).first()
        if change is None:
            raise CommandError(f"no change point {pk}")
        return change

    def _range_of(self, change: ChangePoint) -> str:
        before, after = change.before_build, change.after_build
        if before is None or after is None or before.major != after.major:
            raise CommandError(f"change {change.pk} does not lie between two minors of one major")
        return f"{before.version}..{after.version}"

    def _study(self, pk: int) -> Study:
        study = Study.objects.filter(pk=pk, kind=Study.Kind.MEASURED).first()
        if study is None:
            raise CommandError(f"no measured study {pk}")
        return study

    def _scenario(self, slug: str) -> Scenario:
        scenario = Scenario.objects.filter(slug=slug).first()
        if scenario is None:
            raise CommandError(f"unknown scenario {slug!r}")
        return scenario
