"""A version matrix: one study of many majors (say 10 to 18) on one host, and the index line it draws by itself.

Every link of the line comes from the same study, so from the same host, the same settings and the same days:
1. per major, the newest build the study measured;
2. majors in version order; each one's link to the one before is the geometric mean, over the levels (clients
   and conditions) both measured, of newer / older median TPS, as the trends' links are;
3. the oldest major = 100, each next = the one before x its link. A major with no level in common with the one
   before is left out.
Pure functions over Points.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from benchdash.inventory.models import major_version, version_sort_key
from benchdash.studies.results.compare import Point, plausible_tps

MATRIX_MAJORS = 3  # a study of this many majors or more draws its own line


@dataclass(frozen=True)
class MatrixPoint:
    """One major on a study's own index line: its build, its index (oldest major = 100), and the link that reached
    it (None for the first) with the number of levels that link rests on."""

    version: str
    build_version: str
    index: float
    link: float | None = None
    levels: int = 0


def matrix_line(points: Iterable[Point]) -> list[MatrixPoint]:
    """The study's own index line for one scenario's points; empty below MATRIX_MAJORS majors."""
    newest: dict[str, tuple[str, dict[tuple[int, str], float]]] = {}
    figures: dict[int, dict[tuple[int, str], float]] = defaultdict(dict)
    versions: dict[int, str] = {}
    for point in points:
        if plausible_tps(point.figure):
            figures[point.build_id][point.level] = point.figure
            versions[point.build_id] = point.build_version
    for build_id in sorted(versions, key=lambda build: version_sort_key(versions[build])):
        newest[major_version(versions[build_id])] = (versions[build_id], figures[build_id])
    majors = sorted(newest, key=version_sort_key)
    if len(majors) < MATRIX_MAJORS:
        return []
    line = [MatrixPoint(majors[0], newest[majors[0]][0], 100.0)]
    for major in majors[1:]:
        build_version, levels = newest[major]
        previous = newest[line[-1].version][1]
        common = set(levels) & set(previous)
        if common:
            link = math.exp(sum(math.log(levels[level] / previous[level]) for level in common) / len(common))
            line.append(MatrixPoint(major, build_version, line[-1].index * link, link, len(common)))
    return line


def is_version_matrix(points: Iterable[Point]) -> bool:
    return len({major_version(point.build_version) for point in points}) >= MATRIX_MAJORS
