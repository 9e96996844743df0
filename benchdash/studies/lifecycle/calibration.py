"""A calibration's life (issue 42, point 3): its study made, each slowed trial's quota set from what the unthrottled
runs used, and its rounds evaluated once the study ends (docs/STATISTICS.md, "Calibration").

The plan (calibration_plan) runs, in each round, the unthrottled side twice (A and A', in a random order) and then
each injected size once (in a random order): the slowed runs come after A and A' of their round, so their quota
rests on unthrottled runs measured minutes before, on the same server. A duet design's calibration is its A/A: an
A/A duet study (one build on both sides at once, workers/duet.py) whose rounds are evaluated the same way, A' being
the partner side; a duet runs two sides, so no slowed size.

Its evaluation runs in the queue's task evaluate_calibration, sent when its study ends (queue/study_end.py), and in
`calibrate --wait`; it writes the same figures each time it runs.
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from benchdash.inventory.host_kind import host_kind
from benchdash.inventory.models import Host
from benchdash.studies.calibration_match import design_kind_of
from benchdash.studies.design import StudyDesign, design_problems_offline, draw_seed, problems_text
from benchdash.studies.lifecycle.plan import PlannedTrial
from benchdash.studies.lifecycle.services import study_create, study_saved
from benchdash.studies.models import DUETS, Arrangement, Calibration, Study, Trial, Variant
from benchdash.studies.results.calibration import CalibrationRound, evaluate, real_effects
from benchdash.studies.results.host_spread import spread_history
from workers.cpu_quota import CpuQuotaError, ServerCgroup
from workers.transport import TransportError, connect

DEFAULT_SIZES = (2, 5, 10)
DEFAULT_ROUNDS = 10
MIN_ROUNDS, MAX_ROUNDS = 3, 40


class CalibrationRefused(ValueError):
    """A calibration that cannot run as asked: said in one line, nothing saved."""


def calibration_problems(design: StudyDesign, rounds: int, sizes: Sequence[int]) -> list[str]:
    """What makes the design no calibration's: one build, one scenario, one client level (a calibration measures one
    cell), rounds and sizes within bounds."""
    problems = []
    if (len(design.builds), len(design.scenarios), len(design.client_levels)) != (1, 1, 1) or design.vary:
        problems.append(_("a calibration measures one cell: give one build, one scenario and one client level"))
    if not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        problems.append(_("rounds: from %(low)s to %(high)s") % {"low": MIN_ROUNDS, "high": MAX_ROUNDS})
    if design.arrangement in DUETS:
        if sizes:
            problems.append(_("a duet's calibration is its A/A (a duet runs two sides): give no sizes"))
    elif not sizes or len(set(sizes)) != len(sizes) or not all(1 <= size <= 50 for size in sizes):
        problems.append(_("sizes: distinct whole percentages from 1 to 50, e.g. 2,5,10"))
    return problems


def calibration_plan(variants: Sequence[Variant], rounds: int, seed: int, cell: tuple[int, int]) -> list[PlannedTrial]:
    """Each round: the two unthrottled variants in a random order, then the slowed ones in a random order (the
    module's rule), all of the cell (scenario id, clients); the first trial starts from fresh data, the others reuse
    it (one server, one cluster)."""
    generator = random.Random(seed)
    unthrottled = [variant for variant in variants if variant.slowdown_pct == 0]
    slowed = [variant for variant in variants if variant.slowdown_pct]
    scenario_id, clients = cell
    planned: list[PlannedTrial] = []
    for round_number in range(1, rounds + 1):
        order = generator.sample(unthrottled, len(unthrottled)) + generator.sample(slowed, len(slowed))
        for variant in order:
            position = len(planned)
            planned.append(
                PlannedTrial(
                    position, variant.build_id, scenario_id, clients, round_number, position == 0, False, variant.pk
                )
            )
    return planned


def calibration_variants(design: StudyDesign, sizes: Sequence[int]) -> list[Variant]:
    """A and A' (unthrottled), and one variant per size: the same build, unsaved."""
    build = design.builds[0]
    labels = [(_("unthrottled A"), 0), (_("unthrottled A'"), 0)]
    labels += [(_("%(size)s%% less CPU") % {"size": size}, size) for size in sorted(sizes)]
    return [
        Variant(build=build, label=label, baseline=index == 0, slowdown_pct=slowdown)
        for index, (label, slowdown) in enumerate(labels)
    ]


def calibration_create(
    *, design: StudyDesign, rounds: int, sizes: Sequence[int], created_by: Any = None
) -> Calibration:
    """Save the calibration's study (draft) and its pending Calibration; CalibrationRefused when the design is no
    calibration's. The study's design is the one asked, with as many repetitions as rounds."""
    problems = calibration_problems(design, rounds, sizes)
    if problems:
        raise CalibrationRefused("; ".join(problems))
    design = design.replace(repetitions=rounds, max_repetitions=None, warmup_runs=0)
    assert design.db_host is not None, "a calibration runs on a host"
    with transaction.atomic():
        if design.arrangement in DUETS:
            study = study_create(design=design.replace(arrangement=Arrangement.DUET_AA), created_by=created_by)
        else:
            study = _sequential_calibration_study(design, rounds, sizes, created_by)
        kind = host_kind(design.db_host)
        return Calibration.objects.create(
            study=study,
            host=design.db_host,
            host_kind=dataclasses.asdict(kind) if kind else {},
            design_kind=design_kind_of(design.arrangement),
            scenario=design.scenarios[0],
            clients=design.client_levels[0],
            duration_s=design.duration_s,
            threshold=design.threshold,
            rounds=rounds,
            sizes=sorted(sizes),
        )


def _sequential_calibration_study(design: StudyDesign, rounds: int, sizes: Sequence[int], created_by: Any) -> Study:
    """The study of A, A' and each slowed size, each round in the module's order."""
    study, variants = study_saved(design, calibration_variants(design, sizes), created_by=created_by)
    cell = (design.scenarios[0].pk, design.client_levels[0])
    study.add_planned_trials(calibration_plan(variants, rounds, design.seed, cell))
    return study


def cgroup_problem(host: Host) -> str | None:
    """Whether the host has delegated a cgroup to its run account (the refusal names the root command): asks the host
    over SSH, so only a command or a task calls it, never a view."""
    try:
        with connect(host.installation_spec()) as transport:
            ServerCgroup(transport, host.work_dir).set_quota(None)
    except (CpuQuotaError, TransportError) as error:
        return str(error)
    return None


def calibration_rounds(study: Study) -> list[CalibrationRound]:
    """The study's complete rounds: both unthrottled runs and every size's, succeeded."""
    by_round: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    trials = study.trials.filter(status=Trial.Status.SUCCEEDED, tps__gt=0).select_related("variant")
    for trial in trials.order_by("position"):
        assert trial.variant is not None and trial.repetition is not None and trial.tps is not None
        by_round[trial.repetition][trial.variant.slowdown_pct or 0].append(trial.tps)
    sizes = {variant.slowdown_pct or 0 for variant in study.variants.filter(slowdown_pct__gt=0)}
    rounds = []
    for runs in (by_round[number] for number in sorted(by_round)):
        if len(runs[0]) == 2 and all(len(runs[size]) == 1 for size in sizes):
            rounds.append(CalibrationRound(runs[0][0], runs[0][1], {size: runs[size][0] for size in sizes}))
    return rounds


def calibration_evaluate(*, study_id: int) -> Calibration | None:
    """Once its study ended: the calibration's detections and real effects, measured now (None: the study is no
    calibration's, or fewer than MIN_ROUNDS rounds completed)."""
    calibration = Calibration.objects.select_related("study", "host").filter(study_id=study_id).first()
    if calibration is None:
        return None
    rounds = calibration_rounds(calibration.study)
    if len(rounds) < MIN_ROUNDS:
        return None
    spread = spread_history(calibration.host, None, exclude_study=study_id).get(
        (calibration.scenario_id, calibration.clients)
    )
    found = evaluate(rounds, threshold=calibration.threshold, spread=spread, seed=calibration.study.seed)
    calibration.detections = [detection.as_dict() for detection in found]
    calibration.real_effects = {str(size): effect for size, effect in real_effects(rounds).items()}
    calibration.measured_at = timezone.now()
    calibration.save(update_fields=["detections", "real_effects", "measured_at"])
    return calibration


def calibration_of_last_study(*, host: Host, created_by: Any = None) -> Calibration:
    """The host page's button: a calibration of the host's last study's design, narrowed to its baseline build, first
    scenario and first client level, with DEFAULT_SIZES and DEFAULT_ROUNDS; CalibrationRefused without one."""
    last = Study.objects.filter(db_host=host, baseline__isnull=False).order_by("-created_at").first()
    if last is None or last.baseline is None:
        raise CalibrationRefused(_("no study has run on this host yet: calibrate with manage.py calibrate"))
    design = StudyDesign.from_study(
        last,
        title=_("calibration of %(title)s") % {"title": last.title},
        builds=(last.baseline,),
        scenarios=tuple(last.scenarios.order_by("pk")[:1]),
        client_levels=tuple(last.client_levels[:1]),
        seed=draw_seed(),
        preset=None,
    )
    problems = design_problems_offline(design)
    if problems:
        raise CalibrationRefused(problems_text(problems))
    return calibration_create(design=design, rounds=DEFAULT_ROUNDS, sizes=DEFAULT_SIZES, created_by=created_by)
