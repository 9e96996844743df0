"""Read-only study pages: the list, and one study with its charts, comparison tables and trials."""

from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from benchdash.access import read_access
from benchdash.inventory.models import Build
from benchdash.inventory.noise_display import noise_summary
from benchdash.studies.environment import study_environment
from benchdash.studies.event_places import study_events
from benchdash.studies.evidence.page import study_evidence
from benchdash.studies.evidence.table_health import study_table_health
from benchdash.studies.filters import StudyFilterForm
from benchdash.studies.findings import study_findings
from benchdash.studies.lifecycle.noise import study_noise_checks
from benchdash.studies.lifecycle.progress import study_progress
from benchdash.studies.models import Scenario, Study, Trial
from benchdash.studies.overlaps import trial_overlaps
from benchdash.studies.power_preview import measured_power
from benchdash.studies.procedure import scenario_procedures, study_steps
from benchdash.studies.results.charts import tps_by_clients_figure
from benchdash.studies.results.first_round import study_first_round
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_comparing, study_history_sources, study_results_compared
from benchdash.studies.results.scalability import scalability_charts
from benchdash.studies.results.settings_diff import study_settings_diff
from benchdash.studies.results.tables import scenario_tables

TRIALS_PER_PAGE = 50
# The study list: a page of studies, newest year first, then by title (the index study_list_order_idx).
STUDIES_PER_PAGE = 100
STUDY_LIST_ORDER = ("-year", "title", "pk")


@read_access
def study_list(request: HttpRequest) -> HttpResponse:
    """Newest year first, then by title; filtered by the GET parameters (StudyFilterForm)."""
    filters = StudyFilterForm(request.GET or None)
    page = Paginator(filters.filter(Study.objects.order_by(*STUDY_LIST_ORDER)), STUDIES_PER_PAGE)
    shown = page.get_page(request.GET.get("page"))
    # Trials are counted for the page's studies only: a count over every study reads every trial.
    studies = (
        Study.objects.filter(pk__in=[study.pk for study in shown])
        .select_related("db_host")
        .prefetch_related(Prefetch("builds", queryset=Build.objects.order_by("version_sort", "name")))
        .annotate(succeeded=Count("trials", filter=Q(trials__status=Trial.Status.SUCCEEDED)), total=Count("trials"))
        .order_by(*STUDY_LIST_ORDER)
    )
    report_years = Study.objects.filter(official=True).order_by("-year").values_list("year", flat=True).distinct()
    other_parameters = request.GET.copy()
    other_parameters.pop("page", None)
    ctx = {
        "studies": studies,
        "page": shown,
        "page_query": other_parameters.urlencode(),
        "filters": filters,
        "report_years": report_years,
    }
    return render(request, "studies/list.html", ctx)


@read_access
def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study.objects.select_related("db_host", "client_host", "baseline"), pk=pk)
    comparing = study_comparing(study)  # the DB host's spread history, read once for the results and their sources
    points, comparisons = study_results_compared(study, comparing)
    names = Scenario.objects.filter(id__in={point.scenario_id for point in points}).display_names()
    lines = study_lines(study)
    tables = scenario_tables(points, lines.baseline_id, comparisons, names)
    events = study_events(study)
    charts = [
        (f"chart-{table.scenario_id}", tps_by_clients_figure(table.points, statistic=study.statistic, events=events))
        for table in tables
    ]
    trials = study.trials.select_related("build", "scenario", "variant").order_by("position", "id")
    noise = [(host, noise_summary(report)) for host, report in study_noise_checks(study)]
    ctx = {
        "study": study,
        "sections": list(zip(tables, charts, strict=True)),
        "builds": study.builds.order_by("version_sort", "name"),
        "trials": Paginator(trials, TRIALS_PER_PAGE).get_page(request.GET.get("page")),
        "evidence": study_evidence(study, tables, perf_clients=request.GET.get("perf_clients")),
        "steps": study_steps(study),
        "table_health": study_table_health(study),
        "findings": study_findings(study),
        "scalability": scalability_charts(study, points),
        "procedures": scenario_procedures(study, study.scenarios.order_by("slug")),
        "lines": lines,
        "settings_diff": study_settings_diff(study, lines),
        "power": measured_power(study, points) if study.kind == Study.Kind.MEASURED else [],
        "history_sources": study_history_sources(study, points, comparing),
        "environment": study_environment(study),
        "noise": noise[0][1],
        "other_hosts_noise": noise[1:],
        "progress": study_progress(study),
        "variants": study.variants.select_related("build", "db_host"),
        "overlaps": trial_overlaps(study),
        "other_studies": Study.objects.exclude(pk=study.pk).order_by(*STUDY_LIST_ORDER)[:STUDIES_PER_PAGE],
        "first_round": study_first_round(points),
    }
    return render(request, "studies/detail.html", ctx)
