"""Studies, their trials, points, comparisons and evidence summaries."""

from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import OuterRef, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja.pagination import paginate

from benchdash.api.pagination import Page
from benchdash.api.params import CheckedRouter, Clients, RowId, Year
from benchdash.api.schemas import ComparisonOut, EvidencePointOut, PointOut, StudyOut, TrialEvidenceOut, TrialOut
from benchdash.studies.csv_export import without_ratio
from benchdash.studies.evidence.export import EVIDENCE_HEADER, evidence_csv_rows
from benchdash.studies.models import Study, Trial, TrialEvidence
from benchdash.studies.results.compare import Point
from benchdash.studies.results.comparisons import Comparison, baseline_comparisons
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_results_compared

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
    trials = get_object_or_404(Study, pk=study_id).trials.order_by("position", "pk")
    filters = {"build_id": build_id, "clients": clients, "status": status}
    chosen = trials.filter(**{name: value for name, value in filters.items() if value is not None})
    return chosen.values(*TrialOut.model_fields)


@router.get("/studies/{study_id}/points", response=list[PointOut], summary="A study's points, with ratios")
@paginate(Page)
def study_points(request: HttpRequest, study_id: RowId) -> list[dict[str, Any]]:
    """Median, min, max and n per build x scenario x clients (x conditions), and the ratio to the baseline with its
    interval and verdict at the study's threshold, where the point differs from the baseline in one axis alone."""
    study = get_object_or_404(Study, pk=study_id)
    points, comparisons = study_results_compared(study)
    against_baseline = baseline_comparisons(comparisons, study_lines(study).baseline_id)
    return [_point(point, against_baseline.get(point.key)) for point in points]


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
def trial(request: HttpRequest, trial_id: RowId) -> Trial:
    return get_object_or_404(Trial, pk=trial_id)


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


def _point(point: Point, comparison: Comparison | None) -> dict[str, Any]:
    compared = comparison.point if comparison else without_ratio(point)
    return {
        **{name: getattr(point, name) for name in PointOut.model_fields if hasattr(point, name)},
        "runs": list(point.runs),
        **_ratio(compared),
        "ratio_axis": comparison.column.axis.axis if comparison else None,
        "compared_with": comparison.reference.label if comparison else None,
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
        "verdict": point.verdict.value if point.verdict else None,
    }
