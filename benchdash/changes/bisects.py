"""Bisect services: start a bisect (from a change between two minors, or from two builds of one major), and move
it on when a step's study ends (the queue's task advance_bisect, sent by a receiver of study_ended, and beat's sweep
for a step whose task was lost). The rule that picks the next minor is bisection.py's.

Each step is a study of two builds on the design of a template study (host, procedure, settings), one scenario and
one client level, with adaptive repetitions up to its cap (the template's, else BISECT_CAP), so that it runs until
its verdict is settled or the cap says it cannot be.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from benchdash.changes import bisection
from benchdash.changes.bisection import SAME, Outcome, Step
from benchdash.changes.models import Bisect, BisectStep, ChangePoint
from benchdash.inventory.builds import registered_minors
from benchdash.inventory.models import Build
from benchdash.studies.design import DesignRefused, StudyDesign, design_checked, design_problems_offline, draw_seed
from benchdash.studies.lifecycle import services
from benchdash.studies.models import Scenario, Study
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.uncertainty import Verdict

BISECT_REPETITIONS = 3
BISECT_CAP = 10
OUTCOME_STATUS = {
    Outcome.FOUND: Bisect.Status.FOUND,
    Outcome.NO_CHANGE: Bisect.Status.NO_CHANGE,
    Outcome.INCONCLUSIVE: Bisect.Status.INCONCLUSIVE,
}
logger = logging.getLogger(__name__)


class BisectRefused(ValueError):
    """A bisect that cannot start, with the reason."""


def minors_between(first: Build, last: Build) -> list[Build]:
    """The registered runnable builds of one major from `first` to `last`, one per version, oldest first (the two
    given stand for their versions)."""
    if first.major != last.major:
        raise BisectRefused(f"{first.version} and {last.version} are not of one major")
    older, newer = sorted((first, last), key=lambda build: build.version_sort)
    between = {build.version: build for build in registered_minors(f"{older.version}..{newer.version}")}
    between.update({first.version: first, last.version: last})
    return sorted(between.values(), key=lambda build: build.version_sort)


def bisect_create(
    *,
    template: Study,
    scenario: Scenario,
    clients: int,
    builds: Sequence[Build],
    change: ChangePoint | None = None,
    by: Any = None,
) -> Bisect:
    """Start a bisect over `builds` (minors of one major, oldest first) and queue its first study."""
    if len(builds) < 2 or len({build.major for build in builds}) != 1:
        raise BisectRefused("a bisect needs two minors of one major at least")
    direction = None if change is None else (Verdict.SLOWER if change.size < 0 else Verdict.FASTER)
    step = bisection.bisect_start(len(builds), direction)
    with transaction.atomic():
        bisect = Bisect.objects.create(
            change=change,
            template=template,
            scenario=scenario,
            clients=clients,
            builds=[build.pk for build in builds],
            created_by=by if getattr(by, "pk", None) else None,
        )
        _apply(bisect, step)
    return bisect


def bisect_advance(*, study_id: int) -> Bisect | None:
    """Record the verdict of the bisect step whose study ended, and queue the next step or conclude; a next step
    whose design is refused fails the bisect (the reason logged). None when there is nothing to do: not a step, its
    verdict recorded already (this runs once per step however often it is called), or its bisect no longer running."""
    try:
        return _advance(study_id)
    except BisectRefused:
        logger.exception("the bisect of study %s cannot move on", study_id)
        running = Bisect.objects.filter(steps__study_id=study_id, status=Bisect.Status.RUNNING)
        running.update(status=Bisect.Status.FAILED)
        return Bisect.objects.filter(steps__study_id=study_id).first()


def _advance(study_id: int) -> Bisect | None:
    with transaction.atomic():
        row = BisectStep.objects.select_for_update().select_related("bisect", "study").filter(study_id=study_id)
        step_row = row.first()
        if step_row is None or step_row.verdict or step_row.bisect.status != Bisect.Status.RUNNING:
            return None
        bisect = step_row.bisect
        if step_row.study.status != Study.Status.DONE:
            bisect.status = Bisect.Status.FAILED
            bisect.save(update_fields=["status"])
            return bisect
        step_row.verdict = step_verdict(step_row.study, bisect.builds[step_row.compared], bisect)
        step_row.save(update_fields=["verdict"])
        state = bisection.BisectState(bisect.low, bisect.high, bisect.direction or None)
        _apply(bisect, bisection.bisect_next(Step(Outcome.NEXT, state, compared=step_row.compared), step_row.verdict))
    return bisect


def bisects_behind() -> list[int]:
    """The studies of running bisects' steps that ended with no verdict recorded: their advance_bisect was never
    taken (a broker down at their end) or was lost; beat's sweep moves them on (bisect_advance does it once)."""
    ended = (Study.Status.DONE, Study.Status.FAILED, Study.Status.CANCELLED)
    behind = BisectStep.objects.filter(verdict="", bisect__status=Bisect.Status.RUNNING, study__status__in=ended)
    return list(behind.order_by("study_id").values_list("study_id", flat=True))


def step_verdict(study: Study, compared_build_id: int, bisect: Bisect) -> str:
    """The compared build against the baseline at the bisect's scenario and level: SAME when the interval lies
    wholly inside the study's threshold, else the verdict (faster, slower, can't tell, too few runs)."""
    point = next(
        (
            point
            for point in study_results(study)
            if (point.build_id, point.scenario_id, point.clients)
            == (compared_build_id, bisect.scenario_id, bisect.clients)
        ),
        None,
    )
    if point is None or point.verdict is None:
        return Verdict.TOO_FEW_RUNS
    if point.interval is not None and point.interval.within(study.threshold):
        return SAME
    return point.verdict


def _apply(bisect: Bisect, step: Step) -> None:
    bisect.low, bisect.high, bisect.direction = step.state.low, step.state.high, step.state.direction or ""
    if step.outcome == Outcome.NEXT and step.compared is not None:
        _queue_step(bisect, step.state.low, step.compared)
    else:
        bisect.status = OUTCOME_STATUS[step.outcome]
        if step.first_changed is not None:
            bisect.first_changed_id = bisect.builds[step.first_changed]
    bisect.save()


def _queue_step(bisect: Bisect, low: int, compared: int) -> Study:
    builds = Build.objects.in_bulk([bisect.builds[low], bisect.builds[compared]])
    step = step_design(bisect, builds[bisect.builds[low]], builds[bisect.builds[compared]])
    try:
        # Under the bisect's row lock: no probe over the network here. The step's hosts are its template's, whose
        # pgbench host was found to reach its DB host when the template was queued.
        design = design_checked(step, design_problems_offline)
    except DesignRefused as refused:
        raise BisectRefused(f"the bisect's study was refused: {refused}") from refused
    study = services.study_create(design=design, created_by=bisect.created_by)
    number = bisect.steps.count() + 1
    BisectStep.objects.create(bisect=bisect, number=number, study=study, low=low, compared=compared)
    services.study_enqueue(study=study)
    return study


def step_design(bisect: Bisect, baseline: Build, compared: Build) -> StudyDesign:
    """The step's study: the template's design, two builds, one scenario and level, adaptive repetitions."""
    template = bisect.template
    repetitions = template.repetitions or BISECT_REPETITIONS
    return StudyDesign.from_study(
        template,
        title=f"bisect {bisect.pk}: {baseline.version} vs {compared.version}",
        builds=(baseline, compared),
        baseline=baseline,
        scenarios=(bisect.scenario,),
        client_levels=(bisect.clients,),
        repetitions=repetitions,
        max_repetitions=max(template.max_repetitions or BISECT_CAP, (template.repetitions or 3) + 1),
        keep_data=False,
        seed=draw_seed(),
    )
