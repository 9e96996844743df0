"""The seeds' core-scalability shape (seed 004: 「コア数を15、30、45、60に、またセッション数を1から最大384まで
変化させて」): in a study whose variants differ in their CPU count, TPS against clients with one line per CPU
count, one chart per build and scenario, and each line's peak (the highest median and the client level it was
at). Pure but for the variants read once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchdash.studies.models import Statistic, Study, Variant
from benchdash.studies.results.charts import tps_by_clients_figure
from benchdash.studies.results.compare import Point


@dataclass(frozen=True)
class Peak:
    cpus: str
    median: float
    clients: int
    n: int | None


@dataclass(frozen=True)
class ScalabilityChart:
    scenario_slug: str
    build_name: str
    figure_id: str
    figure: dict
    peaks: list[Peak]


def cpu_label(cpus: int | None) -> str:
    if cpus is None:
        return _("all CPUs")
    return ngettext("%(cpus)d CPU", "%(cpus)d CPUs", cpus) % {"cpus": cpus}


SCALABILITY_HEADER = (
    "study_id",
    "scenario",
    "build",
    "build_version",
    "cpus",
    "variant",
    "clients",
    "median_tps",
    "n",
    "peak",
)
Groups = list[tuple[tuple[str, str], list[Point]]]


def scalability_charts(study: Study, points: Sequence[Point]) -> list[ScalabilityChart]:
    """One chart per build x scenario of a variant study's points (results/lines.py) when its variants differ
    in CPU count; none otherwise."""
    cpus, groups = _groups(study, points)
    return [_chart(number, *key, group, cpus) for number, (key, group) in enumerate(groups, start=1)]


def scalability_rows(study: Study, points: Sequence[Point]) -> Iterator[tuple[Any, ...]]:
    """The charts' figures as CSV rows (SCALABILITY_HEADER): per build x scenario, each CPU count's line by clients,
    its peak marked."""
    cpus, groups = _groups(study, points)
    for (scenario, build), group in groups:
        best = _best(group)
        for point in sorted(group, key=lambda point: (cpus[point.build_id] or 0, point.clients)):
            count = cpus[point.build_id]
            head = (study.pk, scenario, build, point.build_version, "" if count is None else count, point.label)
            yield (*head, point.clients, point.median, point.n, best[point.build_id] is point)


def _groups(study: Study, points: Sequence[Point]) -> tuple[dict[int, int | None], Groups]:
    """Variant id -> its CPU count, and the points by (scenario, build); no groups where the CPUs do not vary."""
    cpus = dict(Variant.objects.filter(study=study).values_list("pk", "cpus"))
    if len(set(cpus.values())) < 2:
        return cpus, []
    groups: dict[tuple[str, str], list[Point]] = defaultdict(list)
    for point in points:
        if point.variant_id in cpus:
            groups[(point.scenario_slug, point.build_name)].append(point)
    return cpus, sorted(groups.items())


def _chart(number: int, scenario: str, build: str, group: list[Point], cpus: dict[int, int | None]) -> ScalabilityChart:
    by_cpus = sorted(group, key=lambda point: cpus[point.build_id] or 0)
    lines = [replace(point, variant_label=_line_label(point, cpus, group)) for point in by_cpus]
    # The lines draw each point's figure (a study of means: its means), and the axis says which.
    statistic = group[0].statistic if group else Statistic.MEDIAN
    figure = tps_by_clients_figure(lines, title=f"{build} · {scenario}", statistic=statistic, ordered=True)
    best = _best(lines)
    peaks = [Peak(point.variant_label, point.median, point.clients, point.n) for point in best.values()]
    return ScalabilityChart(scenario, build, f"scalability-{number}", figure, peaks)


def _line_label(point: Point, cpus: dict[int, int | None], group: list[Point]) -> str:
    """The CPU count; the variant's own label where another variant of the build has the same count."""
    same = {other.build_id for other in group if cpus[other.build_id] == cpus[point.build_id]}
    return cpu_label(cpus[point.build_id]) if len(same) == 1 else point.label


def _best(points: list[Point]) -> dict[int, Point]:
    """Each line's (variant's) point of the highest median, in the order the lines first appear."""
    best: dict[int, Point] = {}
    for point in points:
        if point.build_id not in best or point.median > best[point.build_id].median:
            best[point.build_id] = point
    return best
