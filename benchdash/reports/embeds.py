"""What an embedded chart shows (docs/PAGES.md, "Embedded charts"): a study's TPS-vs-clients chart of one scenario,
or the trends' version index of one scenario, with the stamp that says what made it: the statistic, the threshold,
the interval method, the host, the source, and "benchdash <page> <date of the last change>".

The stamp's date is that of the figures' last change, not of the request: the same figures give the same bytes, so
an embed's ETag (a digest of everything drawn) holds until something drawn changes.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime

from django.db.models import Max
from django.utils.translation import gettext as _

from benchdash.inventory.models import version_sort_key
from benchdash.reports.figures import ReportChart, Series, chart_title_lines, report_chart
from benchdash.studies.models import Scenario, Statistic, Study
from benchdash.studies.results.charts import tps_by_clients_figure
from benchdash.studies.results.report import study_tables
from benchdash.studies.results.tables import ScenarioTable
from benchdash.trends.charts import index_figure
from benchdash.trends.index import ScenarioTrend
from benchdash.trends.queries import trend_of

SOURCE_LENGTH = 140  # a published source is a citation: its start names it


@dataclass(frozen=True)
class Stamp:
    parameters: list[tuple[str, str]]  # (name, value): statistic, threshold, interval method, host, source
    footer: str

    @property
    def lines(self) -> list[str]:
        return [f"{name}: {value}" for name, value in self.parameters] + [self.footer]


@dataclass(frozen=True)
class Embed:
    chart: ReportChart  # what the PNG and SVG draw
    figure: dict  # the same chart in plotly, for the iframe
    stamp: Stamp
    last_change: datetime

    def etag(self, variant: str) -> str:
        """A digest of everything drawn, and the variant (the format, the language)."""
        drawn = json.dumps([asdict(self.chart), self.stamp.lines, self.figure, variant], sort_keys=True, default=str)
        return hashlib.sha256(drawn.encode()).hexdigest()[:32]


def study_embed(study: Study, scenario_slug: str, *, page_url: str) -> Embed | None:
    """The study's chart of the scenario; None where the study has no figures of it."""
    table = next((table for table in study_tables(study) if table.scenario_slug == scenario_slug), None)
    if table is None:
        return None
    last_change = studies_last_change([study.pk])
    parameters = [
        (_("statistic"), statistic_text(study.statistic)),
        (_("threshold"), f"{study.threshold_percent}%"),
        (_("interval method"), _interval_methods(table)),
        (_("DB host"), host_text(study)),
        (_("source"), source_text(study)),
    ]
    title, subtitle = chart_title_lines(study, table)
    return Embed(
        chart=report_chart(study, table),
        figure=tps_by_clients_figure(
            table.points, title=f"{title}<br><sub>{subtitle}</sub>", statistic=study.statistic
        ),
        stamp=Stamp(parameters, _footer(page_url, last_change)),
        last_change=last_change,
    )


def trend_embed(scenario_slug: str, *, page_url: str) -> Embed | None:
    """The version index of the scenario over official studies; None where it has none."""
    scenario = Scenario.objects.filter(slug=scenario_slug).first()
    trend = trend_of(scenario) if scenario else None
    if trend is None or not trend.index:
        return None
    study_ids = sorted({point.link.study.study_id for point in trend.index if point.link})
    studies = list(Study.objects.filter(pk__in=study_ids).select_related("db_host").order_by("year", "title"))
    last_change = studies_last_change(study_ids)
    parameters = [
        (_("statistic"), _distinct(statistic_text(study.statistic) for study in studies)),
        (_("threshold"), _distinct(f"{study.threshold_percent}%" for study in studies)),
        (_("interval method"), _("each link's interval on its runs' own spread, multiplied along the chain")),
        (_("DB host"), _distinct(host_text(study) for study in studies)),
        (_("source"), _cut(_("official studies: %(studies)s") % {"studies": "; ".join(map(str, studies))})),
    ]
    chart = index_report_chart(trend)
    return Embed(
        chart=chart,
        figure=index_figure(trend.index, title=f"{chart.title}<br><sub>{chart.subtitle}</sub>"),
        stamp=Stamp(parameters, _footer(page_url, last_change)),
        last_change=last_change,
    )


def index_report_chart(trend: ScenarioTrend) -> ReportChart:
    """The chained index as a report chart: versions as categories, one line per segment (a break restarts at 100)."""
    versions = sorted({point.version for point in trend.index}, key=version_sort_key)
    segments: dict[int, dict[str, float]] = defaultdict(dict)
    for point in trend.index:
        segments[point.segment][point.version] = round(point.index, 2)
    series = [
        Series(_("segment %(number)d") % {"number": number}, [values.get(version) for version in versions])
        for number, values in sorted(segments.items())
    ]
    return ReportChart(
        title=f"{_('Version index across studies')} · {trend.scenario_name}",
        subtitle=_("Trends: official studies only; each link is a ratio measured by one study"),
        x_title=_("PostgreSQL version"),
        y_title=_("index (oldest version = 100)"),
        x_labels=versions,
        numeric_x=False,
        series=series,
    )


def studies_last_change(study_ids: Iterable[int]) -> datetime:
    """When the studies last changed: made, started, finished, marked official, or a trial finished."""
    latest = Study.objects.filter(pk__in=list(study_ids)).aggregate(
        created=Max("created_at"),
        started=Max("started_at"),
        finished=Max("finished_at"),
        official=Max("official_at"),
        trial=Max("trials__finished_at"),
    )
    return max(moment for moment in latest.values() if moment is not None)


def statistic_text(statistic: str) -> str:
    return str(Statistic(statistic).label) if statistic in Statistic.values else statistic


def host_text(study: Study) -> str:
    """The DB host as benchdash knows it (name and CPU), or the hardware a published source states."""
    if study.db_host is not None:
        cpu = (study.db_host.facts or {}).get("cpu_model")
        return f"{study.db_host.name} ({cpu})" if cpu else study.db_host.name
    return study.hardware or "—"


def source_text(study: Study) -> str:
    if study.is_published:
        return _cut(study.source or "—")
    return _("benchdash study %(number)s: %(study)s") % {"number": study.pk, "study": study}


def _interval_methods(table: ScenarioTable) -> str:
    labels = (str(cell.method_label) for row in table.rows for cell in row.compared_cells if cell.method_label)
    return _distinct(labels) if table.comparisons else "—"


def _distinct(texts: Iterable[str]) -> str:
    return "; ".join(dict.fromkeys(text for text in texts if text)) or "—"


def _cut(text: str) -> str:
    return text if len(text) <= SOURCE_LENGTH else text[: SOURCE_LENGTH - 1] + "…"


def _footer(page_url: str, last_change: datetime) -> str:
    return f"benchdash {page_url} {last_change.date().isoformat()}"
