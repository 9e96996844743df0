"""Adaptive repetitions: after its planned rounds, a study runs another round of the cells whose interval still
crosses its threshold, until each is settled or has run `max_repetitions` trials.

1. The rule (pure, `cells_to_repeat`): a compared point whose interval is not settled at the threshold
   (uncertainty.is_settled: too few runs, or crossing 1 - t or 1 + t) needs more runs, and so does the
   baseline's point it is compared with; a cell that has `cap` trials already gets no more.
2. `study_extend`, called when a study has no pending or running trial left: plans one more round of those
   cells (plan.plan_round: shuffled by the seed and the round's number) at the end of the run order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import transaction
from django.db.models import Count, Max

from benchdash.studies.lifecycle.plan import ScenarioRule, VariantRef, plan_round
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.compare import Point
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.uncertainty import is_settled

Cell = tuple[int, int, int]  # build, scenario, clients


def cells_to_repeat(
    points: Iterable[Point], baseline_build_id: int | None, *, threshold: float, trials: Mapping[Cell, int], cap: int
) -> set[Cell]:
    """The cells that get one more run: see the module's step 1. `points` are compared with the baseline
    (ratio and interval filled); `trials` is how many trials each cell has had."""
    points = list(points)
    baselines = {(p.scenario_id, p.clients): p for p in points if p.build_id == baseline_build_id}
    cells: set[Cell] = set()
    for point in points:
        baseline = baselines.get((point.scenario_id, point.clients))
        if point.ratio is None or baseline is None or is_settled(point.interval, threshold):
            continue
        cells |= {(p.build_id, p.scenario_id, p.clients) for p in (point, baseline)}
    return {cell for cell in cells if trials.get(cell, 0) < cap}


def _variants_by_line(study: Study, *, by_variant: bool) -> dict[int, list[VariantRef]]:
    """Each line's variants: a cell of a build runs again for each of its variants; in a variant study (whose
    lines are its variants, results/lines.py) a cell is one variant's."""
    variants: dict[int, list[VariantRef]] = {}
    for variant_id, build_id in study.variants.values_list("pk", "build_id"):
        variants.setdefault(variant_id if by_variant else build_id, []).append(VariantRef(build_id, variant_id))
    return variants


def study_extend(*, study_id: int) -> int:
    """Queue one more round of the study's unsettled cells (step 2); returns how many trials it added (0: the
    study has no adaptive repetitions, is not active, still has trials to run, or every cell is settled)."""
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        if not study.max_repetitions or study.status not in (Study.Status.QUEUED, Study.Status.RUNNING):
            return 0
        trials = study.trials.filter(published=False, warmup=False)
        if trials.filter(status__in=(Trial.Status.PENDING, Trial.Status.RUNNING)).exists():
            return 0
        lines = study_lines(study)
        counts = dict(
            ((line, scenario, clients), count)
            for line, scenario, clients, count in trials.values_list(lines.trial_field, "scenario_id", "clients")
            .annotate(count=Count("pk"))
            .order_by()
        )
        cells = cells_to_repeat(
            study_results(study), lines.baseline_id, threshold=study.threshold, trials=counts, cap=study.max_repetitions
        )
        if not cells:
            return 0
        last = study.trials.aggregate(repetition=Max("repetition"), position=Max("position"))
        scenarios = study.scenarios.all()
        planned = plan_round(
            cells=sorted(cells),
            scenarios=[ScenarioRule(scenario.pk, scenario.reset, scenario.prewarm) for scenario in scenarios],
            repetition=(last["repetition"] or 0) + 1,
            seed=study.seed,
            first_position=(last["position"] or 0) + 1,
            order=study.run_order,
            variants=_variants_by_line(study, by_variant=lines.by_variant),
        )
        return study.add_planned_trials(planned)
