"""Two lines side by side, whatever studies they come from: per scenario x client level, each side's figure and the
ratio b / a with its interval and verdict (where both sides have runs), and one chart with both curves. Pure.

Each side's points carry their side (SIDE_A, SIDE_B) in `build_id` and their side's title as label, so that the same
build in two studies stays two lines and compare.Comparing pairs b with a as it pairs a build with its baseline.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from benchdash.studies.models import Statistic
from benchdash.studies.results.charts import tps_by_clients_figure
from benchdash.studies.results.compare import Comparing, Point, conditions_order
from benchdash.studies.results.tables import BuildColumn, Cell

SIDE_A, SIDE_B = 1, 2


@dataclass(frozen=True)
class SideBySideRow:
    """One scenario and client level: a's point, b's point compared with a's (in `ratio.point`)."""

    scenario_id: int
    scenario_slug: str
    clients: int
    conditions: str
    a: Point | None
    b: Point | None
    ratio: Cell


def as_side(points: Iterable[Point], side: int, title: str) -> list[Point]:
    """The points as one side: its number in `build_id`, its title as their label."""
    return [replace(point, build_id=side, variant_label=f"{'ab'[side - 1]}: {title}") for point in points]


def side_by_side_rows(a_points: list[Point], b_points: list[Point], comparing: Comparing) -> list[SideBySideRow]:
    """A row per scenario and level either side measured, in scenario then level order."""
    a_at = {comparing.place(point): point for point in a_points}
    b_at = {comparing.place(point): point for point in b_points}
    column = BuildColumn(build_id=SIDE_B, name="b", version="", is_baseline=False)
    rows = []
    for place in sorted(a_at.keys() | b_at.keys(), key=lambda place: _order(a_at.get(place) or b_at[place])):
        a_point, b_point = a_at.get(place), b_at.get(place)
        compared = comparing.pair(b_point, a_point) if b_point else None
        where = a_point or b_at[place]
        rows.append(
            SideBySideRow(
                scenario_id=where.scenario_id,
                scenario_slug=where.scenario_slug,
                clients=where.clients,
                conditions=where.conditions,
                a=a_point,
                b=compared,
                ratio=Cell(point=compared, column=column),
            )
        )
    return rows


def side_by_side_figure(a_points: list[Point], b_points: list[Point], statistic: str = Statistic.MEDIAN) -> dict:
    """One chart with both sides' curves (a curve per scenario, named by it, where the sides hold several), a
    first."""
    both = [*a_points, *b_points]
    several = len({point.scenario_id for point in both}) > 1
    curves: dict[tuple[int, int], int] = {}
    drawn = [
        replace(
            point,
            build_id=curves.setdefault((point.build_id, point.scenario_id), len(curves)),
            variant_label=f"{point.label} · {point.scenario_slug}" if several else point.label,
        )
        for point in both
    ]
    return tps_by_clients_figure(drawn, statistic=statistic, ordered=True)


def common_levels(a_points: Iterable[Point], b_points: Iterable[Point]) -> dict[int, int]:
    """Per scenario both sides measured, the highest client count both measured (where the evidence is compared)."""
    b_levels = {(point.scenario_id, point.clients) for point in b_points}
    levels: dict[int, int] = {}
    for point in a_points:
        if (point.scenario_id, point.clients) in b_levels:
            levels[point.scenario_id] = max(levels.get(point.scenario_id, 0), point.clients)
    return levels


def _order(point: Point) -> tuple[str, int, tuple[object, ...]]:
    return (point.scenario_slug, point.clients, conditions_order(point.conditions))
