"""The seeds' core-scalability shape (seed 004: 「コア数を15、30、45、60に、またセッション数を1から最大384まで
変化させて」): in a study whose variants differ in their CPU count, TPS against clients with one line per CPU
count, one chart per build and scenario, and each line's peak (the highest median and the client level it was
at). Pure but for the variants read once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

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


def scalability_charts(study: Study, points: Sequence[Point]) -> list[ScalabilityChart]:
    """One chart per build x scenario of a variant study's points (results/lines.py) when its variants differ
    in CPU count; none otherwise."""
    cpus = dict(Variant.objects.filter(study=study).values_list("pk", "cpus"))
    if len(set(cpus.values())) < 2:
        return []
    groups: dict[tuple[str, str], list[Point]] = defaultdict(list)
    for point in points:
        if point.variant_id in cpus:
            groups[(point.scenario_slug, point.build_name)].append(point)
    ordered = sorted(groups.items())
    return [_chart(number, *key, group, cpus) for number, (key, group) in enumerate(ordered, start=1)]


def _chart(number: int, scenario: str, build: str, group: list[Point], cpus: dict[int, int | None]) -> ScalabilityChart:
    by_cpus = sorted(group, key=lambda point: cpus[point.build_id] or 0)
    lines = [replace(point, variant_label=_line_label(point, cpus, group)) for point in by_cpus]
    figure = tps_by_clients_figure(lines, title=f"{build} · {scenario}", statistic=Statistic.MEDIAN, ordered=True)
    return ScalabilityChart(scenario, build, f"scalability-{number}", figure, _peaks(lines))


def _line_label(point: Point, cpus: dict[int, int | None], group: list[Point]) -> str:
    """The CPU count; the variant's own label where another variant of the build has the same count."""
    same = {other.build_id for other in group if cpus[other.build_id] == cpus[point.build_id]}
    return cpu_label(cpus[point.build_id]) if len(same) == 1 else point.label


def _peaks(lines: list[Point]) -> list[Peak]:
    best: dict[str, Point] = {}
    for point in lines:
        if point.variant_label not in best or point.median > best[point.variant_label].median:
            best[point.variant_label] = point
    return [Peak(label, point.median, point.clients, point.n) for label, point in best.items()]
