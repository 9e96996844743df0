"""`manage.py calibrate HOST`: measure what a design detects on a host (issue 42, point 3, docs/COMMANDS.md).

Takes queue_study's design options (one build, one scenario, one client level), plus --rounds and --sizes; checks
that the host delegated a cgroup to its run account (the refusal names the one root command), then queues a
calibration study: each round the unthrottled server twice (an A/A) and once under each injected CPU slowdown; with
--arrangement duet_aa, an A/A duet study (both sides at once, each in its half of the CPUs).
Prints the study's id; with --wait, its progress as queue_study shows it, then the calibration's figures.
"""

from typing import Any

from django.core.management.base import CommandError, CommandParser

from benchdash.studies.calibration_text import detections_text
from benchdash.studies.design import DesignRefused, design_checked
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.calibration import (
    DEFAULT_SIZES,
    CalibrationRefused,
    calibration_create,
    calibration_evaluate,
    calibration_problems,
    cgroup_problem,
)
from benchdash.studies.management.commands import queue_study
from benchdash.studies.models import DUETS, Calibration


class Command(queue_study.Command):
    help = (
        "Calibrate a design on a host: rounds of an A/A and of injected CPU slowdowns of known size, resampled into "
        "studies of 3, 5, 8 and 10 runs a side."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("calibrated_host", metavar="HOST", help="the DB host to calibrate")
        super().add_arguments(parser)
        parser.add_argument("--rounds", type=int, default=10, help="rounds (each: A, A' and every size; default 10)")
        parser.add_argument(
            "--sizes",
            default=None,
            help="slowdowns in %% (default 2,5,10; none with --arrangement duet_aa: a duet's calibration is its A/A)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        options["host"] = options["calibrated_host"]
        try:
            design = design_checked(self.study_design(options))
            sizes = _sizes(options["sizes"], duet=design.arrangement in DUETS)
            problems = calibration_problems(design, options["rounds"], sizes)
            if problems:
                raise CalibrationRefused("; ".join(problems))
        except (DesignRefused, CalibrationRefused) as refused:
            raise CommandError(f"the calibration was not queued: {refused}") from refused
        assert design.db_host is not None
        problem = None if design.arrangement in DUETS else cgroup_problem(design.db_host)
        if problem:
            raise CommandError(f"the calibration was not queued: {problem}")
        calibration = calibration_create(design=design, rounds=options["rounds"], sizes=sizes)
        services.study_enqueue(study=calibration.study)
        self.stdout.write(str(calibration.study_id))
        self.stdout.flush()
        if options["wait"]:
            self._wait(calibration.study)
            self._report(calibration)

    def _report(self, calibration: Calibration) -> None:
        measured = calibration_evaluate(study_id=calibration.study_id)
        if measured is None:
            raise CommandError(f"calibration {calibration.pk}: too few complete rounds to measure", returncode=1)
        self.stdout.write(detections_text(measured))


def _sizes(text: str | None, *, duet: bool) -> list[int]:
    """The sizes asked, else the default ones (a duet's: none)."""
    if text is None:
        return [] if duet else list(DEFAULT_SIZES)
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(f"--sizes: whole percentages separated by commas, e.g. 2,5,10, not {text!r}") from None
