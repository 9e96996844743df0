"""The embeddable charts of a study's pages (embed_registry.py): its TPS-vs-clients chart of a scenario, its
scalability charts, its evidence charts (CPU, CPU per transaction, wait events, perf's differentials and flame
graphs), a trial's timeline and flame graph. Each is the figure its page draws, found as the page finds it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext as _

from benchdash.reports.embeds import Embed, Parameters, studies_last_change, study_parameters, table_interval_methods
from benchdash.reports.figures import chart_title_lines
from benchdash.studies.event_places import study_events
from benchdash.studies.evidence.page import EvidenceSection, study_evidence
from benchdash.studies.evidence.trial_page import trial_evidence_view
from benchdash.studies.models import Scenario, Study, Trial
from benchdash.studies.results.charts import tps_by_clients_figure
from benchdash.studies.results.compare import Point
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_comparing, study_results_compared
from benchdash.studies.results.scalability import scalability_charts
from benchdash.studies.results.tables import ScenarioTable, scenario_tables


@dataclass(frozen=True)
class StudyResults:
    """What the study page computes before its charts: the points and a table per scenario."""

    study: Study
    points: list[Point]
    tables: list[ScenarioTable]

    def table(self, slug: str) -> ScenarioTable | None:
        return next((table for table in self.tables if table.scenario_slug == slug), None)

    def table_of(self, scenario_id: int) -> ScenarioTable | None:
        return next((table for table in self.tables if table.scenario_id == scenario_id), None)


def study_page_results(pk: int) -> StudyResults | None:
    study = Study.objects.select_related("db_host").filter(pk=pk).first()
    if study is None:
        return None
    points, comparisons = study_results_compared(study, study_comparing(study))
    names = Scenario.objects.filter(id__in={point.scenario_id for point in points}).display_names()
    return StudyResults(study, points, scenario_tables(points, study_lines(study).baseline_id, comparisons, names))


def study_chart(*, pk: int, scenario: str, state: Mapping[str, str]) -> Embed | None:
    """The study's TPS-vs-clients chart of a scenario (the study page's first chart of each scenario)."""
    results = study_page_results(pk)
    table = results.table(scenario) if results else None
    if results is None or table is None:
        return None
    study = results.study
    figure = tps_by_clients_figure(table.points, statistic=study.statistic, events=study_events(study))
    title, _subtitle = chart_title_lines(study, table)
    return _embed(study, title, figure, table, f"#chart-{table.scenario_id}")


def scalability_chart(*, pk: int, figure: str, state: Mapping[str, str]) -> Embed | None:
    """One of the study's scalability charts (a line per CPU count), by its id on the page."""
    results = study_page_results(pk)
    charts = scalability_charts(results.study, results.points) if results else []
    chart = next((chart for chart in charts if chart.figure_id == figure), None)
    if results is None or chart is None:
        return None
    table = results.table(chart.scenario_slug)
    title = _("Scalability by CPU count · %(build)s") % {"build": chart.build_name}
    return _embed(results.study, title, chart.figure, table, f"#{figure}", [(_("build"), chart.build_name)])


def evidence_chart(*, pk: int, figure: str, state: Mapping[str, str]) -> Embed | None:
    """One of the study's evidence charts by its id on the page; perf's at the client level `?perf_clients=` names, as
    the page's own `perf_clients` does."""
    results = study_page_results(pk)
    if results is None:
        return None
    clients = state.get("perf_clients")
    for section in study_evidence(results.study, results.tables, perf_clients=clients).sections:
        found = _evidence_figure(section, figure)
        if found is not None:
            title, drawn, chart_state = found
            table = results.table_of(section.scenario_id)
            state_lines = [(_("scenario"), section.scenario_name), *chart_state]
            return _embed(results.study, title, drawn, table, f"#{figure}", state_lines)
    return None


def trial_chart(*, pk: int, figure: str, state: Mapping[str, str]) -> Embed | None:
    """A trial's per-second timeline (`timeline`) or its perf flame graph (`flame`)."""
    trial = (
        Trial.objects.select_related("study__db_host", "build", "scenario", "evidence")
        .filter(pk=pk, published=False)
        .first()
    )
    view = trial_evidence_view(trial) if trial else None
    drawn = {"timeline": view.timeline, "flame": view.flame}.get(figure) if view else None
    if trial is None or drawn is None:
        return None
    titles = {
        "timeline": _("Per-second TPS, latency, CPU, disk, memory and active backends"),
        "flame": _("perf flame graph"),
    }
    trial_state = [
        (_("scenario"), trial.scenario.display_name),
        (_("build"), trial.build.name),
        (_("clients"), str(trial.clients)),
        (_("trial"), str(trial.pk)),
    ]
    return Embed(
        title=titles[figure],
        subtitle=f"{trial.study.year} {trial.study.title}",
        figure=drawn,
        parameters=study_parameters(trial.study, "—"),
        page=reverse("studies:trial", args=[trial.pk]),
        last_change=trial.finished_at or studies_last_change([trial.study_id]),
        state=trial_state,
    )


def _evidence_figure(section: EvidenceSection, figure: str) -> tuple[str, dict, Parameters] | None:
    titles = {
        "cpu": _("CPU breakdown per build × clients"),
        "cpu_tx": _("CPU time per transaction"),
        "waits": _("Wait events: share of sampled active backends"),
    }
    for key, (figure_id, drawn) in section.figures.items():
        if figure_id == figure:
            return titles[key], drawn, []
    perf = section.perf
    if perf is None:
        return None
    level = [(_("clients"), str(perf.clients))]
    for diff in perf.differentials:
        if diff.figure_id == figure:
            versus = [(_("builds"), f"{diff.baseline.name} → {diff.other.name}")]
            return _("perf: change in self share of samples"), diff.figure, level + versus
    for build in perf.builds:
        if build.flame_id == figure:
            return _("perf flame graph"), build.flame, [*level, (_("build"), build.column.name)]
    return None


def _embed(
    study: Study, title: str, figure: dict, table: ScenarioTable | None, anchor: str, state: Parameters | None = None
) -> Embed:
    method = table_interval_methods(table) if table else "—"
    return Embed(
        title=title,
        subtitle=f"{study.year} {study.title}",
        figure=figure,
        parameters=study_parameters(study, method),
        page=reverse("studies:detail", args=[study.pk]) + anchor,
        last_change=studies_last_change([study.pk]),
        state=state or [],
    )
