"""The report view of a study (tables, charts, notes and conclusions), its wide CSV, and saving the conclusions."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from benchdash.access import read_access
from benchdash.inventory.events import EventTouch
from benchdash.studies.csv_export import csv_response, python_csv
from benchdash.studies.event_places import study_events
from benchdash.studies.models import Study
from benchdash.studies.results.charts import statistic_axis_title, tps_by_clients_figure
from benchdash.studies.results.compare import Point
from benchdash.studies.results.first_round import study_first_round
from benchdash.studies.results.report import ConclusionsForm, report_columns, report_header, report_rows, study_tables

CONCLUSIONS_PERMISSION = "studies.change_study"


@read_access
def study_report(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study.objects.select_related("db_host", "baseline"), pk=pk)
    tables, events = study_tables(study), study_events(study)
    ctx = {
        "study": study,
        "sections": [
            (table, f"report-chart-{table.scenario_id}", _chart(table.points, study, events)) for table in tables
        ],
        "columns": report_columns(tables),
        "value_heading": statistic_axis_title(study.statistic),
        "study_heading": f"{study.year} {study.title}",
        "form": ConclusionsForm(instance=study),
        "can_edit": request.user.has_perm(CONCLUSIONS_PERMISSION),
        "first_round": study_first_round([point for table in tables for point in table.points]),
    }
    return render(request, "studies/report.html", ctx)


def _chart(points: list[Point], study: Study, events: list[EventTouch]) -> dict:
    return tps_by_clients_figure(points, statistic=study.statistic, events=events)


@require_GET
@read_access
def report_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = get_object_or_404(Study, pk=pk)
    tables = study_tables(study)
    columns = report_columns(tables)
    rows = report_rows(tables, columns)
    header = report_header(tables, columns, study.statistic)
    return csv_response(f"benchdash-study-{pk}-report.csv", python_csv(header, rows))


@login_required
@permission_required(CONCLUSIONS_PERMISSION, raise_exception=True)
@require_POST
def study_conclusions(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = ConclusionsForm(request.POST, instance=study)
    if form.is_valid():
        form.save()
        messages.success(request, _("Notes and conclusions saved."))
    else:
        messages.warning(request, _("The notes and conclusions were not saved: %(errors)s") % {"errors": form.errors})
    return redirect("studies:report", pk=pk)
