"""The report view of a study (tables, charts, notes and conclusions), its wide CSV, and saving the conclusions."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from benchdash.access import read_access
from benchdash.studies.csv_export import csv_response, python_csv
from benchdash.studies.models import Scenario, Study
from benchdash.studies.results.charts import tps_by_clients_figure
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.report import ConclusionsForm, report_columns, report_header, report_rows
from benchdash.studies.results.tables import ScenarioTable, scenario_tables

CONCLUSIONS_PERMISSION = "studies.change_study"


def _tables(study: Study) -> list[ScenarioTable]:
    points = study_results(study)
    names = dict(Scenario.objects.filter(id__in={point.scenario_id for point in points}).values_list("id", "name"))
    return scenario_tables(points, study.baseline_id, names)


@read_access
def study_report(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study.objects.select_related("db_host", "baseline"), pk=pk)
    tables = _tables(study)
    ctx = {
        "study": study,
        "sections": [
            (table, f"report-chart-{table.scenario_id}", tps_by_clients_figure(table.points, statistic=study.statistic))
            for table in tables
        ],
        "columns": report_columns(tables),
        "form": ConclusionsForm(instance=study),
        "can_edit": request.user.has_perm(CONCLUSIONS_PERMISSION),
    }
    return render(request, "studies/report.html", ctx)


@require_GET
@read_access
def report_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = get_object_or_404(Study, pk=pk)
    tables = _tables(study)
    columns = report_columns(tables)
    rows = report_rows(tables, columns)
    return csv_response(f"benchdash-study-{pk}-report.csv", python_csv(report_header(columns), rows))


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
