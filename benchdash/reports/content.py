"""What a study's report says, as plain data that the PDF, the slides and the bundle lay out: the seeds' shape
(title; environment and procedure; per scenario the TPS-vs-clients chart and the 前バージョン比 table with intervals
and verdicts, then the evidence that explains each difference; the conclusions written on the report page)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from benchdash.reports.evidence import difference_evidence
from benchdash.reports.figures import ReportChart, report_chart
from benchdash.reports.manifest import Manifest, study_manifest
from benchdash.studies.evidence.page import study_evidence
from benchdash.studies.models import Study
from benchdash.studies.procedure import Step, scenario_procedures, study_steps
from benchdash.studies.results.report import study_tables
from benchdash.studies.results.tables import ScenarioTable


@dataclass(frozen=True)
class ScenarioSection:
    table: ScenarioTable
    chart: ReportChart
    evidence: list[str]


@dataclass(frozen=True)
class StudyReport:
    study: Study
    environment: list[Step]
    procedure: list[Step]
    sections: list[ScenarioSection]
    manifest: Manifest

    @property
    def heading(self) -> str:
        return f"{self.study.year} {self.study.title}"


def study_report(study: Study, *, site_url: str) -> StudyReport:
    """The report of one study; site_url (scheme and host) makes the links of its manifest absolute."""
    tables = study_tables(study)
    evidence = study_evidence(study, tables)
    sections = [
        ScenarioSection(table, report_chart(study, table), difference_evidence(study, table, evidence_section))
        for table, evidence_section in zip(tables, evidence.sections, strict=True)
    ]
    return StudyReport(
        study=study,
        environment=environment_steps(study),
        procedure=procedure_steps(study),
        sections=sections,
        manifest=study_manifest(study, site_url=site_url),
    )


def environment_steps(study: Study) -> list[Step]:
    """Where the figures were measured: the hosts as benchdash found them, or the hardware the source states."""
    if study.is_published or study.db_host is None:
        steps = [Step(_("Hardware"), study.hardware or "—"), Step(_("OS"), study.os or "—")]
        return [*steps, Step(_("Source"), study.source or "—")]
    facts = study.db_host.facts or {}
    memory = facts.get("memory_bytes")
    return [
        Step(_("DB host"), f"{study.db_host.name}: {study.db_host.cpu_summary or '—'}"),
        Step(_("memory"), f"{memory / 2**30:.0f} GiB" if memory else "—"),
        Step(_("OS"), " / ".join(str(facts[name]) for name in ("os_release", "kernel") if facts.get(name)) or "—"),
        Step(_("pgbench host"), study.client_host.name if study.client_host else "—"),
        Step("pgbench", str(facts.get("pgbench") or "—")),
    ]


def procedure_steps(study: Study) -> list[Step]:
    """The study's fixed steps, then each scenario's, prefixed with its name; of a published study only what its
    source states (run order and repetitions it does not state stay unknown)."""
    levels = Step(_("client levels"), ", ".join(str(clients) for clients in study.client_levels) or "—")
    settings = [Step("postgresql.conf", ", ".join(f"{name} = {value}" for name, value in study.pg_settings.items()))]
    if study.is_published:
        repetitions = str(study.repetitions) if study.repetitions else _("not stated by the source")
        notes = [Step(_("notes"), study.notes)] if study.notes else []
        return [levels, Step(_("repetitions"), repetitions), *notes]
    steps = [levels, *study_steps(study), *(settings if study.pg_settings else [])]
    for procedure in scenario_procedures(study, study.scenarios.order_by("slug")):
        steps += [Step(f"{procedure.scenario.display_name}: {step.name}", step.value) for step in procedure.steps]
    return steps


def year_reports(year: int, *, site_url: str) -> list[StudyReport]:
    """Every official study of a year, in title order."""
    studies = Study.objects.filter(year=year, official=True).select_related("db_host", "client_host", "baseline")
    return [study_report(study, site_url=site_url) for study in studies.order_by("title", "pk")]


def report_title(reports: Sequence[StudyReport], year: int | None = None) -> str:
    if year is not None:
        return _("benchdash report %(year)s") % {"year": year}
    return reports[0].heading if reports else _("benchdash report")
