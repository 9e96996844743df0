"""A report's chart as plain data, drawn alike by the PDF and the slides: one line per build through its figures.

The page's plotly figure (studies/results/charts.py) and this one are built from the same ScenarioTable, so a report
file shows the curves and the title the page shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from benchdash.studies.models import Study
from benchdash.studies.results.charts import statistic_axis_title
from benchdash.studies.results.compare import Point
from benchdash.studies.results.tables import ScenarioTable


@dataclass(frozen=True)
class Series:
    name: str
    values: list[float | None]  # one per x label, None where the build has no figure


@dataclass(frozen=True)
class ReportChart:
    title: str
    subtitle: str
    x_title: str
    y_title: str
    x_labels: list[str]
    numeric_x: bool  # client counts on a value axis; with conditions, one category per level
    series: list[Series]

    @property
    def x_values(self) -> list[float]:
        return [float(label) if self.numeric_x else float(number) for number, label in enumerate(self.x_labels)]


def chart_title_lines(study: Study, table: ScenarioTable) -> tuple[str, str]:
    """The scenario and the unit, then the study: ('Reference: TPS (median) by clients', '2021 PGECons ...')."""
    what = _("%(scenario)s: %(unit)s by clients") % {
        "scenario": table.scenario_name,
        "unit": statistic_axis_title(study.statistic),
    }
    return what, f"{study.year} {study.title}"


def report_chart(study: Study, table: ScenarioTable) -> ReportChart:
    numeric_x = not any(row.conditions for row in table.rows)
    labels = [str(row.clients) if numeric_x else f"{row.clients} · {row.conditions}" for row in table.rows]
    series = [
        Series(column.name, [_value(row.cells[number].point) for row in table.rows])
        for number, column in enumerate(table.columns)
    ]
    title, subtitle = chart_title_lines(study, table)
    return ReportChart(
        title=title,
        subtitle=subtitle,
        x_title=_("clients") if numeric_x else _("clients · conditions"),
        y_title=statistic_axis_title(study.statistic),
        x_labels=labels,
        numeric_x=numeric_x,
        series=series,
    )


def _value(point: Point | None) -> float | None:
    return None if point is None else round(point.figure, 4)
