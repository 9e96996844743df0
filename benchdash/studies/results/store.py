"""The study points: each variant x scenario x clients (x conditions) of a study summarised (median, mean, min, max,
n, runs). Trials without a variant (written around the planner) make their build's point, as before variants.

Pages read StudyPoint; this module keeps it in step with the trials. Call points_refresh wherever
counted trials appear, change or go: trial_finish, the importer, the admin, `manage.py refresh_points`.
"""

from collections.abc import Iterable

from django.contrib.postgres.aggregates import ArrayAgg
from django.db import transaction
from django.db.models import Avg, Count, Exists, Max, Min, OuterRef, Q, QuerySet

from benchdash.studies.models import Study, StudyPoint, Trial
from benchdash.studies.results.compare import PointKey
from benchdash.studies.results.queries import Median, counted_trials

POINT_FIELDS = ["median", "mean", "minimum", "maximum", "n", "runs", "rounds"]
# runs ascending, and rounds in the same order: ties broken by the trial's id so that the two arrays align.
RUN_ORDER = ("tps", "id")
POINT_KEY = ["study", "variant", "build", "scenario", "clients", "conditions"]


def points_refresh(
    *,
    study_id: int,
    build_id: int | None = None,
    scenario_id: int | None = None,
    clients: int | None = None,
    conditions: str | None = None,
) -> int:
    """Recompute the points of a study (or of the part the other arguments select: a build selects all of its
    variants) from its trials.

    One aggregate over the selected counted trials, an upsert of what it gives, and a delete of the
    selected points left without a counted trial. Returns how many points were written.
    """
    given = {"build_id": build_id, "scenario_id": scenario_id, "clients": clients, "conditions": conditions}
    selection = {name: value for name, value in given.items() if value is not None}
    with transaction.atomic():
        # Two writers of one study wait for each other here, so the later one aggregates after the
        # earlier one's trials are committed and neither overwrites a point with an older figure.
        # NO KEY: inserting trials or points of the study (a foreign-key share lock) is not blocked.
        study = Study.objects.select_for_update(no_key=True).filter(pk=study_id).values("kind", "repetitions").get()
        points = _computed_points(study_id, selection)
        if study["kind"] == Study.Kind.PUBLISHED:
            points = [_as_published(point, study["repetitions"]) for point in points]
        StudyPoint.objects.bulk_create(
            points, update_conflicts=True, unique_fields=POINT_KEY, update_fields=POINT_FIELDS
        )
        _without_trials(study_id, selection).delete()
    return len(points)


def _computed_points(study_id: int, selection: dict[str, int | str]) -> list[StudyPoint]:
    rows = (
        counted_trials()
        .filter(study_id=study_id, **selection)
        .values("scenario_id", "variant_id", "build_id", "clients", "conditions")
        .annotate(
            median=Median("tps"),
            mean=Avg("tps"),
            minimum=Min("tps"),
            maximum=Max("tps"),
            n=Count("tps"),
            runs=ArrayAgg("tps", order_by=RUN_ORDER),
            rounds=ArrayAgg("repetition", order_by=RUN_ORDER),
        )
        .order_by()
    )
    return [StudyPoint(study_id=study_id, **row) for row in rows]


def _as_published(point: StudyPoint, repetitions: int | None) -> StudyPoint:
    """A published figure is the point itself: its runs' spread is unknown, and n is what the source
    says stands behind it (the study's repetitions), or unknown; never the 1 of one imported row."""
    point.minimum = point.maximum = point.mean = None
    point.n = repetitions
    point.runs = []
    point.rounds = []
    return point


def _without_trials(study_id: int, selection: dict[str, int | str]) -> QuerySet[StudyPoint]:
    trials_of_point = counted_trials().filter(
        study_id=OuterRef("study_id"),
        scenario_id=OuterRef("scenario_id"),
        build_id=OuterRef("build_id"),
        clients=OuterRef("clients"),
        conditions=OuterRef("conditions"),
    )
    of_variant = Q(variant__isnull=False) & Exists(trials_of_point.filter(variant_id=OuterRef("variant_id")))
    of_build = Q(variant__isnull=True) & Exists(trials_of_point.filter(variant__isnull=True))
    return StudyPoint.objects.filter(study_id=study_id, **selection).exclude(of_variant | of_build)


def trial_point_keys(trials: QuerySet[Trial]) -> set[PointKey]:
    """The points these trials count in (or would, once succeeded)."""
    fields = ("study_id", "build_id", "scenario_id", "clients", "conditions")
    return set(trials.order_by().values_list(*fields).distinct())


def points_refresh_keys(keys: Iterable[PointKey]) -> None:
    """points_refresh for each of these points: after hand edits, which touch a few trials at a time."""
    for study_id, build_id, scenario_id, clients, conditions in sorted(set(keys)):
        points_refresh(
            study_id=study_id, build_id=build_id, scenario_id=scenario_id, clients=clients, conditions=conditions
        )
