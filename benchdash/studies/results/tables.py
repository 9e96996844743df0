"""The comparison table of a study page: per scenario, a row per client level (and conditions), a column per build
(or variant), then a column of ratios per comparison (results/comparisons.py: one axis, both sides, within one level
of every other axis).

Pure functions over Points and Comparisons.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import version_sort_key
from benchdash.studies.results.compare import Point, conditions_order
from benchdash.studies.results.comparisons import Comparison, ComparisonColumn
from benchdash.studies.results.matrix import MatrixPoint, matrix_line
from benchdash.studies.results.numbers import NO_FIGURE, column_texts
from benchdash.studies.results.uncertainty import Method, Verdict

VERDICT_LABELS = {
    Verdict.FASTER: _("faster"),
    Verdict.SLOWER: _("slower"),
    Verdict.CANT_TELL: _("can't tell"),
    Verdict.TOO_FEW_RUNS: _("too few runs to tell"),
}
METHOD_LABELS = {
    Method.RANK: _("rank interval"),
    Method.POOLED_T: _("pooled t, with the host's recent spread"),
    Method.PAIRED_T: _("paired t, runs paired by round, with the host's recent spread"),
    Method.PAIRED_OWN: _("paired by round, %(degrees)s df, no host history"),
    Method.MEAN_T: _("t on the runs' means, %(degrees)s df"),
    Method.MEAN_PAIRED_T: _("t on the means, runs paired by round, %(degrees)s df"),
}
# The labels that say the interval's degrees of freedom.
WITH_DEGREES = (Method.PAIRED_OWN, Method.MEAN_T, Method.MEAN_PAIRED_T)


@dataclass(frozen=True)
class BuildColumn:
    build_id: int
    name: str
    version: str
    is_baseline: bool


@dataclass(frozen=True)
class Cell:
    """One build at one client level; in a comparison's column (RatioCell), its point carries the ratio to the
    comparison's reference cell of the same row."""

    point: Point | None
    column: BuildColumn
    figure: str = NO_FIGURE  # the median as its column writes it (results/numbers.py)

    @property
    def shows_ratio(self) -> bool:
        return self.point is not None and self.point.ratio is not None

    @property
    def ratio_class(self) -> str:
        """Coloured up or down only where the verdict says so; a published ratio (no runs) by its direction."""
        if self.point is None or self.point.ratio is None or self.point.verdict == Verdict.CANT_TELL:
            return ""
        if self.point.verdict in (Verdict.FASTER, Verdict.SLOWER):
            return "ratio-up" if self.point.verdict == Verdict.FASTER else "ratio-down"
        if self.point.verdict is None and self.point.ratio != 1:
            return "ratio-up" if self.point.ratio > 1 else "ratio-down"
        return ""

    @property
    def cv_percent(self) -> str:
        """The run-to-run spread, '3.2%'; empty with fewer than two runs."""
        cv = self.point.cv if self.point else None
        return "" if cv is None else f"{cv * 100:.1f}%"

    @property
    def interval_text(self) -> str:
        """The ratio's interval in percent, '91.2% – 97.4%'; empty where there is none."""
        interval = self.point.interval if self.point else None
        return "" if interval is None else f"{interval.low * 100:.1f}% – {interval.high * 100:.1f}%"

    @property
    def verdict(self) -> str:
        return self.point.verdict.value if self.point and self.point.verdict else ""

    @property
    def verdict_label(self) -> str | Promise:
        return VERDICT_LABELS[self.point.verdict] if self.point and self.point.verdict else ""

    @property
    def method_label(self) -> str | Promise:
        """Which interval gave the verdict (studies/results/pooled.py); empty where there is none."""
        interval = self.point.interval if self.point else None
        if interval is None:
            return ""
        label = METHOD_LABELS[interval.method]
        return label % {"degrees": interval.degrees} if interval.method in WITH_DEGREES else label


@dataclass(frozen=True)
class RatioCell(Cell):
    """A comparison's cell: the point compared with the cell that differs from it in the column's axis alone."""

    column: ComparisonColumn  # type: ignore[assignment]


@dataclass(frozen=True)
class ComparisonRow:
    clients: int
    cells: list[Cell]
    conditions: str = ""
    # A cell per comparison column of the table, in its order.
    compared_cells: list[RatioCell] = field(default_factory=list)


@dataclass(frozen=True)
class ScenarioTable:
    scenario_id: int
    scenario_slug: str
    scenario_name: str
    columns: list[BuildColumn]
    rows: list[ComparisonRow]
    points: list[Point]
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def compared_columns(self) -> list[ComparisonColumn]:
        """The comparisons' columns, in the study's order (results/comparisons.py)."""
        return list(dict.fromkeys(comparison.column for comparison in self.comparisons))

    @property
    def matrix(self) -> list[MatrixPoint]:
        """A version matrix's own index line (studies/results/matrix.py); empty below three majors."""
        return matrix_line(self.points)


def scenario_tables(
    points: Iterable[Point],
    baseline_build_id: int | None,
    comparisons: Iterable[Comparison],
    scenario_names: Mapping[int, str] | None = None,
) -> list[ScenarioTable]:
    """One table per scenario (in slug order), builds as columns with the baseline first, then by version, then the
    study's comparisons of that scenario as ratio columns."""
    by_scenario: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_scenario[point.scenario_id].append(point)
    compared: dict[int, list[Comparison]] = defaultdict(list)
    for comparison in comparisons:
        compared[comparison.point.scenario_id].append(comparison)
    names = scenario_names or {}
    tables = [
        _table(
            scenario_points,
            baseline_build_id,
            names.get(scenario_id, scenario_points[0].scenario_slug),
            compared[scenario_id],
        )
        for scenario_id, scenario_points in by_scenario.items()
    ]
    return sorted(tables, key=lambda table: table.scenario_slug)


def _table(
    points: list[Point], baseline_build_id: int | None, name: str, comparisons: list[Comparison]
) -> ScenarioTable:
    columns = _columns(points, baseline_build_id)
    compared_columns = list(dict.fromkeys(comparison.column for comparison in comparisons))
    by_cell = {(point.level, point.build_id): point for point in points}
    ratios = {(comparison.point.level, comparison.column): comparison.point for comparison in comparisons}
    levels = sorted({point.level for point in points}, key=level_order)
    figures = {
        column.build_id: column_texts([_figure(by_cell.get((level, column.build_id))) for level in levels])
        for column in columns
    }
    rows = [
        ComparisonRow(
            clients=level[0],
            conditions=level[1],
            cells=[
                Cell(by_cell.get((level, column.build_id)), column, figures[column.build_id][number])
                for column in columns
            ],
            compared_cells=[RatioCell(ratios.get((level, column)), column) for column in compared_columns],
        )
        for number, level in enumerate(levels)
    ]
    first = points[0]
    return ScenarioTable(first.scenario_id, first.scenario_slug, name, columns, rows, points, comparisons)


def _figure(point: Point | None) -> float | None:
    return None if point is None else point.figure


def _columns(points: list[Point], baseline_build_id: int | None) -> list[BuildColumn]:
    builds = {point.build_id: point for point in points}
    columns = [
        BuildColumn(build_id, point.label, point.build_version, build_id == baseline_build_id)
        for build_id, point in builds.items()
    ]
    return sorted(columns, key=lambda column: column_order(column.is_baseline, column.version, column.name))


def column_order(is_baseline: bool, version: str, name: str) -> tuple[bool, int, str]:
    """The order of a study's builds (or variants) side by side: the baseline first, then by version and name."""
    return (not is_baseline, version_sort_key(version), name)


def level_order(level: tuple[int, str]) -> tuple[int, tuple[object, ...]]:
    """Clients first, then conditions in natural order ('-t 10' before '-t 100')."""
    return (level[0], conditions_order(level[1]))
