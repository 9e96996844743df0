"""The report view of a study: the seeds' tables (clients down, builds across, median or mean TPS, then each
comparison's ratio in %: 前バージョン比 where the version differs, else named by its axis)
as CSV rows, and the form of the study's notes and conclusions."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import Scenario, Statistic, Study
from benchdash.studies.results.comparisons import ComparisonColumn
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.queries import study_results_compared
from benchdash.studies.results.tables import BuildColumn, ScenarioTable, scenario_tables


class ConclusionsForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = ["conclusions"]
        widgets = {"conclusions": forms.Textarea(attrs={"rows": 8})}
        help_texts = {"conclusions": _("What the figures show and why, as it goes into the yearly report.")}


def study_tables(study: Study) -> list[ScenarioTable]:
    """The study's comparison tables, a scenario each, named as its scenarios are."""
    points, comparisons = study_results_compared(study)
    names = Scenario.objects.filter(id__in={point.scenario_id for point in points}).display_names()
    return scenario_tables(points, study_lines(study).baseline_id, comparisons, names)


def report_columns(tables: Sequence[ScenarioTable]) -> list[BuildColumn]:
    """Every build of the study's tables once, in table order (the baseline first, then by version)."""
    seen: dict[int, BuildColumn] = {}
    for table in tables:
        for column in table.columns:
            seen.setdefault(column.build_id, column)
    return list(seen.values())


def report_header(
    tables: Sequence[ScenarioTable], columns: Sequence[BuildColumn], statistic: str = Statistic.MEDIAN
) -> list[str]:
    """scenario, clients, each build's figure (mean_tps in a study of means; median_tps in every other, a published
    study's whatever its statistic, as before), then each comparison's ratio, named by its axis, both sides and the
    other axes' levels ('PG 14 / PG 13 %' in a study of builds, 'checksums on / off, PG 15 %' otherwise)."""
    named = "mean" if statistic == Statistic.MEAN else "median"
    figures = [f"{column.name} {named}_tps" for column in columns]
    ratios = [f"{column.key_text} %" for column in _compared_columns(tables)]
    return ["scenario", "clients", *figures, *ratios]


def report_rows(tables: Sequence[ScenarioTable], columns: Sequence[BuildColumn]) -> Iterator[list[Any]]:
    """A row per scenario x clients: each build's figure (median or mean TPS), then each comparison's ratio in %."""
    compared = _compared_columns(tables)
    for table in tables:
        for row in table.rows:
            cells = {cell.column.build_id: cell.point for cell in row.cells}
            ratio_cells = {cell.column: cell.point for cell in row.compared_cells}
            figures = [_figure(cells.get(column.build_id)) for column in columns]
            ratios = [_ratio(ratio_cells.get(column)) for column in compared]
            yield [table.scenario_slug, row.clients, *figures, *ratios]


def _compared_columns(tables: Sequence[ScenarioTable]) -> list[ComparisonColumn]:
    """Every comparison of the study's tables once, in table order."""
    return list(dict.fromkeys(column for table in tables for column in table.compared_columns))


def _figure(point: Any) -> float | str:
    return "" if point is None else point.figure


def _ratio(point: Any) -> int | str:
    return "" if point is None or point.ratio_percent is None else point.ratio_percent
