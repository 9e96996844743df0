"""The evidence's data as files: CSV per build x clients, wait events and perf functions, JSON of it all,
and a trial's per-second series. Headers and keys are documented in docs/CSV.md."""

from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from benchdash.access import read_access
from benchdash.studies.csv_export import csv_response, python_csv
from benchdash.studies.evidence import export
from benchdash.studies.models import Study, TrialEvidence

JSON_OPTIONS = {"ensure_ascii": False, "indent": 1}


def _study(pk: int) -> Study:
    return get_object_or_404(Study, pk=pk)


@require_GET
@read_access
def evidence_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = _study(pk)
    rows = export.evidence_csv_rows(study)
    return csv_response(f"benchdash-study-{pk}-evidence.csv", python_csv(export.EVIDENCE_HEADER, rows))


@require_GET
@read_access
def wait_events_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = _study(pk)
    rows = export.wait_event_csv_rows(study)
    return csv_response(f"benchdash-study-{pk}-wait-events.csv", python_csv(export.WAIT_EVENTS_HEADER, rows))


@require_GET
@read_access
def perf_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = _study(pk)
    rows = export.perf_csv_rows(study)
    return csv_response(f"benchdash-study-{pk}-perf.csv", python_csv(export.PERF_HEADER, rows))


@require_GET
@read_access
def table_health_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = _study(pk)
    rows = export.table_health_csv_rows(study)
    return csv_response(f"benchdash-study-{pk}-table-health.csv", python_csv(export.TABLE_HEALTH_HEADER, rows))


@require_GET
@read_access
def evidence_json(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(export.study_evidence_json(_study(pk)), json_dumps_params=JSON_OPTIONS)


@require_GET
@read_access
def trial_series_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    evidence = get_object_or_404(TrialEvidence.objects.only("series"), trial_id=pk)
    rows = export.series_csv_rows(evidence.series)
    return csv_response(f"benchdash-trial-{pk}-series.csv", python_csv(export.SERIES_HEADER, rows))


@require_GET
@read_access
def trial_evidence_json(request: HttpRequest, pk: int) -> JsonResponse:
    evidence = get_object_or_404(TrialEvidence, trial_id=pk)
    return JsonResponse(export.trial_evidence_json(evidence), json_dumps_params=JSON_OPTIONS)
