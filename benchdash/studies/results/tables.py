"""The comparison table of a study page: per scenario, a row per client level (and conditions), a column per build.

Pure functions over Points (benchdash.studies.results.compare).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import version_sort_key
from benchdash.studies.results.compare import Point, conditions_order
from benchdash.studies.results.matrix import MatrixPoint, matrix_line
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
    """One build at one client level, compared with the baseline build of the same row."""

    point: Point | None
    column: BuildColumn

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
class ComparisonRow:
    clients: int
    cells: list[Cell]
    conditions: str = ""

    @property
    def compared_cells(self) -> list[Cell]:
        return [cell for cell in self.cells if not cell.column.is_baseline]


@dataclass(frozen=True)
class ScenarioTable:
    scenario_id: int
    scenario_slug: str
    scenario_name: str
    columns: list[BuildColumn]
    rows: list[ComparisonRow]
    points: list[Point]

    @property
    def compared_columns(self) -> list[BuildColumn]:
        return [column for column in self.columns if not column.is_baseline]

    @property
    def matrix(self) -> list[MatrixPoint]:
        """A version matrix's own index line (studies/results/matrix.py); empty below three majors."""
        return matrix_line(self.points)


def scenario_tables(
    points: Iterable[Point], baseline_build_id: int | None, scenario_names: Mapping[int, str] | None = None
) -> list[ScenarioTable]:
    """One table per scenario (in slug order), builds as columns with the baseline first, then by version."""
    by_scenario: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_scenario[point.scenario_id].append(point)
    names = scenario_names or {}
    tables = [
        _table(scenario_points, baseline_build_id, names.get(scenario_id, scenario_points[0].scenario_slug))
        for scenario_id, scenario_points in by_scenario.items()
    ]
    return sorted(tables, key=lambda table: table.scenario_slug)


def _table(points: list[Point], baseline_build_id: int | None, name: str) -> ScenarioTable:
    columns = _columns(points, baseline_build_id)
    by_cell = {(point.level, point.build_id): point for point in points}
    rows = [
        ComparisonRow(
            clients=level[0],
            conditions=level[1],
            cells=[Cell(by_cell.get((level, column.build_id)), column) for column in columns],
        )
        for level in sorted({point.level for point in points}, key=level_order)
    ]
    first = points[0]
    return ScenarioTable(first.scenario_id, first.scenario_slug, name, columns, rows, points)


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
