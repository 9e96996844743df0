"""Studies, their trials, points, comparisons and evidence summaries."""

from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import Case, JSONField, OuterRef, QuerySet, Value, When
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja.pagination import paginate

from benchdash.api.pagination import Page
from benchdash.api.params import CheckedRouter, Clients, RowId, Year
from benchdash.api.schemas import ComparisonOut, EvidencePointOut, PointOut, StudyOut, TrialEvidenceOut, TrialOut
from benchdash.studies.csv_export import without_ratio
from benchdash.studies.evidence.export import EVIDENCE_HEADER, evidence_csv_rows
from benchdash.studies.models import Study, Trial, TrialEvidence, Variant
from benchdash.studies.results.compare import Point
from benchdash.studies.results.comparisons import Comparison, baseline_comparisons
from benchdash.studies.results.first_round import point_first_round_effect, study_first_round
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.mean import mean_interval
from benchdash.studies.results.queries import study_results_compared
from benchdash.studies.variant_design import variant_levels

router = CheckedRouter(tags=["studies"])


@router.get("/studies", response=list[StudyOut], summary="Studies, newest year first")
@paginate(Page)
def studies(
    request: HttpRequest,
    year: Year | None = None,
    kind: Study.Kind | None = None,
    status: Study.Status | None = None,
    official: bool | None = None,
) -> QuerySet[Study, dict[str, Any]]:
    filters = {"year": year, "kind": kind, "status": status, "official": official}
    found = Study.objects.filter(**{name: value for name, value in filters.items() if value is not None})
    return _study_rows(found.order_by("-year", "-created_at", "-pk"))


@router.get("/studies/{study_id}", response=StudyOut, summary="One study")
def study(request: HttpRequest, study_id: RowId) -> dict[str, Any]:
    rows = _study_rows(Study.objects.all())
    row: dict[str, Any] = get_object_or_404(rows, pk=study_id)  # type: ignore[type-var,assignment]
    return row


@router.get("/studies/{study_id}/trials", response=list[TrialOut], summary="A study's trials, in run order")
@paginate(Page)
def study_trials(
    request: HttpRequest,
    study_id: RowId,
    build_id: RowId | None = None,
    clients: Clients | None = None,
    status: Trial.Status | None = None,
) -> QuerySet[Trial, dict[str, Any]]:
    study = get_object_or_404(Study, pk=study_id)
    filters = {"build_id": build_id, "clients": clients, "status": status}
    chosen = study.trials.filter(**{name: value for name, value in filters.items() if value is not None})
    return _trial_rows(chosen.order_by("position", "pk"), study)


@router.get("/studies/{study_id}/points", response=list[PointOut], summary="A study's points, with ratios")
@paginate(Page)
def study_points(request: HttpRequest, study_id: RowId) -> list[dict[str, Any]]:
    """Median, mean, min, max and n per variant x scenario x clients (x conditions), and the ratio to the baseline
    with its interval and verdict at the study's threshold, where the point differs from the baseline in one axis
    alone."""
    study = get_object_or_404(Study, pk=study_id)
    points, comparisons = study_results_compared(study)
    against_baseline = baseline_comparisons(comparisons, study_lines(study).baseline_id)
    variants = {variant.pk: variant for variant in _variants(study)}
    levels = variant_levels(list(variants.values()))
    first_round = _study_first_round(points)
    return [
        _point(point, against_baseline.get(point.key), variants.get(point.variant_id or 0), levels) | first_round
        for point in points
    ]


@router.get(
    "/studies/{study_id}/comparisons", response=list[ComparisonOut], summary="A study's comparisons, axis by axis"
)
@paginate(Page)
def study_comparisons(request: HttpRequest, study_id: RowId) -> list[dict[str, Any]]:
    """Each cell compared with the cell that differs from it in exactly one axis (the version, checksums, CPUs, the
    DB host, -t, a setting), within each level of the other axes: the ratio, its interval and verdict."""
    _points, comparisons = study_results_compared(get_object_or_404(Study, pk=study_id))
    return [_comparison(comparison) for comparison in comparisons]


@router.get("/studies/{study_id}/evidence", response=list[EvidencePointOut], summary="A study's evidence summary")
@paginate(Page)
def study_evidence(request: HttpRequest, study_id: RowId) -> list[dict[str, Any]]:
    """Per scenario x build x clients: CPU, disk, wait events, stability and the bottleneck the rules name."""
    rows = evidence_csv_rows(get_object_or_404(Study, pk=study_id))
    return [dict(zip(EVIDENCE_HEADER, row, strict=True)) for row in rows]


@router.get("/trials/{trial_id}", response=TrialOut, summary="One trial")
def trial(request: HttpRequest, trial_id: RowId) -> dict[str, Any]:
    study = get_object_or_404(Study, trials__pk=trial_id)
    row: dict[str, Any] = _trial_rows(Trial.objects.filter(pk=trial_id), study).get()
    return row


@router.get("/trials/{trial_id}/evidence", response=TrialEvidenceOut, summary="One trial's evidence summary")
def trial_evidence(request: HttpRequest, trial_id: RowId) -> TrialEvidence:
    return get_object_or_404(TrialEvidence.objects.defer("series", "perf_flame"), trial_id=trial_id)


def _study_rows(studies: QuerySet[Study]) -> QuerySet[Study, dict[str, Any]]:
    """Studies as StudyOut rows, their builds and scenarios as array subqueries: no join or GROUP BY over every
    study, so a page's keys are found before any study's builds are read."""
    builds = Study.builds.through.objects.filter(study_id=OuterRef("pk")).order_by("build_id")
    scenarios = Study.scenarios.through.objects.filter(study_id=OuterRef("pk")).order_by("scenario__slug")
    gathered = studies.annotate(
        build_ids=ArraySubquery(builds.values("build_id")),
        scenario_slugs=ArraySubquery(scenarios.values("scenario__slug")),
    )
    return gathered.values(*StudyOut.model_fields)


def _variants(study: Study) -> list[Variant]:
    return list(study.variants.select_related("db_host"))


def _trial_rows(trials: QuerySet[Trial], study: Study) -> QuerySet[Trial, dict[str, Any]]:
    """Trials as TrialOut rows, each with its line's label and its variant's axis levels (the study's few variants
    read once, their levels written into the query)."""
    levels = variant_levels(_variants(study))
    axes = Case(
        *(When(variant_id=pk, then=Value(level, output_field=JSONField())) for pk, level in levels.items()),
        default=Value({}, output_field=JSONField()),
        output_field=JSONField(),
    )
    labelled = trials.annotate(variant_label=Coalesce("variant__label", "build__name"), axes=axes)
    return labelled.values(*TrialOut.model_fields)


def _point(
    point: Point, comparison: Comparison | None, variant: Variant | None, levels: dict[int, dict[str, str]]
) -> dict[str, Any]:
    """A point as PointOut: in a variant study its build_id holds its variant's (results/lines.py), given back; its
    ratio is to the baseline where it differs from it in one axis alone."""
    compared = comparison.point if comparison else without_ratio(point)
    mean = mean_interval(point.runs)
    return {
        **{name: getattr(point, name) for name in PointOut.model_fields if hasattr(point, name)},
        "build_id": variant.build_id if variant else point.build_id,
        "variant_label": point.label,
        "axes": levels.get(variant.pk, {}) if variant else {},
        "runs": list(point.runs),
        "mean_low": mean.low if mean else None,
        "mean_high": mean.high if mean else None,
        **_ratio(compared),
        "ratio_axis": comparison.column.axis.axis if comparison else None,
        "compared_with": comparison.reference.label if comparison else None,
        "first_round_effect": point_first_round_effect(point),
    }


def _study_first_round(points: list[Point]) -> dict[str, float | None]:
    """The study's first-round effect and its chance where the host does not warm up, as every point carries them."""
    found = study_first_round(points)
    return {
        "study_first_round_effect": found.effect if found else None,
        "study_first_round_p": found.p_value if found else None,
    }


def _comparison(comparison: Comparison) -> dict[str, Any]:
    column, point, reference = comparison.column, comparison.point, comparison.reference
    return {
        "scenario_slug": point.scenario_slug,
        "clients": point.clients,
        "conditions": point.conditions,
        "axis": column.axis.axis,
        "level": column.axis.level,
        "reference_level": column.reference_level,
        "context": {level.axis: level.level for level in column.context},
        "line_id": column.line_id,
        "line": point.label,
        "compared_with_id": column.reference_line_id,
        "compared_with": reference.label,
        "median": point.median,
        "compared_with_median": reference.median,
        **_ratio(point),
        "method": point.interval.method.value if point.interval else None,
    }


def _ratio(point: Point) -> dict[str, Any]:
    interval = point.interval
    return {
        "ratio": point.ratio,
        "ratio_low": interval.low if interval else None,
        "ratio_high": interval.high if interval else None,
        "confidence": interval.confidence if interval else None,
        "interval_method": interval.method.value if interval else None,
        "verdict": point.verdict.value if point.verdict else None,
    }
