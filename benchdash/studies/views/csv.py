"""CSV downloads of one study: a row per trial, a row per build x scenario x clients, and a row per comparison."""

from django.http import HttpRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from benchdash.access import read_access
from benchdash.studies.csv_export import (
    COMPARISON_HEADER,
    SUMMARY_HEADER,
    comparison_rows,
    csv_response,
    python_csv,
    summary_rows,
    trials_csv_chunks,
)
from benchdash.studies.models import Study
from benchdash.studies.results.queries import study_results, study_results_compared
from benchdash.studies.results.scalability import SCALABILITY_HEADER, scalability_rows


@require_GET
@read_access
def trials_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = get_object_or_404(Study, pk=pk)
    return csv_response(f"benchdash-study-{study.id}-trials.csv", trials_csv_chunks(study))


@require_GET
@read_access
def summary_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = get_object_or_404(Study, pk=pk)
    rows = summary_rows(study, *study_results_compared(study))
    return csv_response(f"benchdash-study-{study.id}-summary.csv", python_csv(SUMMARY_HEADER, rows))


@require_GET
@read_access
def comparisons_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = get_object_or_404(Study, pk=pk)
    _points, comparisons = study_results_compared(study)
    rows = comparison_rows(study, comparisons)
    return csv_response(f"benchdash-study-{study.id}-comparisons.csv", python_csv(COMPARISON_HEADER, rows))


@require_GET
@read_access
def scalability_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = get_object_or_404(Study, pk=pk)
    rows = scalability_rows(study, study_results(study))
    return csv_response(f"benchdash-study-{study.id}-scalability.csv", python_csv(SCALABILITY_HEADER, rows))
