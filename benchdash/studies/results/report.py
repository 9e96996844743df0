"""The report view of a study: the seeds' tables (clients down, builds across, median or mean TPS, 前バージョン比 in %)
as CSV rows, and the form of the study's notes and conclusions."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import Scenario, Statistic, Study
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.tables import BuildColumn, ScenarioTable, scenario_tables


class ConclusionsForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = ["conclusions"]
        widgets = {"conclusions": forms.Textarea(attrs={"rows": 8})}
        help_texts = {"conclusions": _("What the figures show and why, as it goes into the yearly report.")}


def study_tables(study: Study) -> list[ScenarioTable]:
    """The study's comparison tables, a scenario each, named as its scenarios are."""
    points = study_results(study)
    names = Scenario.objects.filter(id__in={point.scenario_id for point in points}).display_names()
    return scenario_tables(points, study_lines(study).baseline_id, names)


def report_columns(tables: Sequence[ScenarioTable]) -> list[BuildColumn]:
    """Every build of the study's tables once, in table order (the baseline first, then by version)."""
    seen: dict[int, BuildColumn] = {}
    for table in tables:
        for column in table.columns:
            seen.setdefault(column.build_id, column)
    return list(seen.values())


def report_header(columns: Sequence[BuildColumn], statistic: str = Statistic.MEDIAN) -> list[str]:
    """The CSV's header: a study of means names its figures mean_tps; every other study, median_tps (a published
    study's figure, whatever its statistic, as before)."""
    baseline = next((column.name for column in columns if column.is_baseline), "")
    named = "mean" if statistic == Statistic.MEAN else "median"
    figures = [f"{column.name} {named}_tps" for column in columns]
    ratios = [f"{column.name} / {baseline} %" for column in columns if not column.is_baseline]
    return ["scenario", "clients", *figures, *ratios]


def report_rows(tables: Sequence[ScenarioTable], columns: Sequence[BuildColumn]) -> Iterator[list[Any]]:
    """A row per scenario x clients: each build's figure (median or mean TPS), then each build's ratio to the baseline
    in %."""
    for table in tables:
        for row in table.rows:
            cells = {cell.column.build_id: cell.point for cell in row.cells}
            figures = [_figure(cells.get(column.build_id)) for column in columns]
            ratios = [_ratio(cells.get(column.build_id)) for column in columns if not column.is_baseline]
            yield [table.scenario_slug, row.clients, *figures, *ratios]


def _figure(point: Any) -> float | str:
    return "" if point is None else point.figure


def _ratio(point: Any) -> int | str:
    return "" if point is None or point.ratio_percent is None else point.ratio_percent
