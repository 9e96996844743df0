"""The chained version index: year-over-year ratios strung together into one line per scenario.

Each study compares versions on one machine, so its absolute TPS cannot be compared with another
year's, but its ratios can. Pure functions over plain data; `benchdash.studies.queries` feeds them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from benchdash.inventory.models import major_version, version_sort_key
from benchdash.studies.results import Point

INDEX_START = 100.0


@dataclass(frozen=True)
class StudyRef:
    """The study a link comes from, as the trends page labels it."""

    study_id: int
    year: int
    title: str
    statistic: str = "median"
    year_inferred: bool = False

    @property
    def label(self) -> str:
        return f"{self.year} {self.title}"


@dataclass(frozen=True)
class VersionLink:
    """One study's verdict on one pair of major versions for one scenario: newer = older x ratio."""

    older_version: str
    newer_version: str
    ratio: float
    study: StudyRef
    clients: tuple[int, ...] = ()

    @property
    def pair(self) -> tuple[str, str]:
        return (self.older_version, self.newer_version)


@dataclass(frozen=True)
class IndexPoint:
    """One version on the chained index line.

    `segment` counts from 1; a new segment starts (at 100) where no study links a version to the
    previous one. `link` is the link that reached this version (None where a segment starts);
    `other_links` are the older studies that measured the same pair and were not used.
    """

    version: str
    index: float
    segment: int
    starts_segment: bool
    link: VersionLink | None = None
    other_links: tuple[VersionLink, ...] = field(default=())


def chained_version_index(links: Iterable[VersionLink]) -> list[IndexPoint]:
    """Chain one scenario's links into an index, oldest version = 100.

    1. Group the links by (older, newer) pair. Where several studies link the same pair, use the
       newest study (highest year); within a year the one measured at the most client levels, so a
       curve beats a single point; then the highest study id. Keep the others as `other_links`.
    2. Order every version that appears in a link, oldest first (9.2 < 9.6 < 10 < 13).
    3. Start a segment at the oldest version not yet placed: its index is 100.
    4. From the current version, follow the link to the nearest newer version:
       index(newer) = index(older) x ratio. Repeat while such a link exists.
    5. Where no link leaves the current version, the line breaks: go back to step 3 with the oldest
       version newer than the current one. Versions the chain stepped over are not drawn.
    """
    chosen, others = _choose_per_pair(links)
    outgoing: dict[str, list[VersionLink]] = defaultdict(list)
    for link in chosen.values():
        outgoing[link.older_version].append(link)
    versions = sorted({version for pair in chosen for version in pair}, key=version_sort_key)
    points: list[IndexPoint] = []
    while versions:
        segment = len({point.segment for point in points}) + 1
        points.append(IndexPoint(version=versions[0], index=INDEX_START, segment=segment, starts_segment=True))
        points.extend(_follow(points[-1], outgoing, others))
        last = version_sort_key(points[-1].version)
        versions = [version for version in versions if version_sort_key(version) > last]
    return points


def study_links(study: StudyRef, medians: Mapping[tuple[str, int], float]) -> list[VersionLink]:
    """The links one study gives for one scenario, between its consecutive major versions.

    `medians` maps (build version, clients) to the median TPS. The ratio of a pair is the geometric
    mean, over the client levels both versions have, of newer median / older median. A study with
    three versions (9.4, 9.6, 11) gives two links (9.4 -> 9.6, 9.6 -> 11). For relative statistics
    (baseline = 100) the figures are already an index and the same arithmetic holds.
    """
    by_version: dict[str, dict[int, float]] = defaultdict(dict)
    for (version, clients), median in medians.items():
        if median and median > 0:
            by_version[major_version(version)][clients] = median
    ordered = sorted(by_version, key=version_sort_key)
    links = []
    for older, newer in zip(ordered, ordered[1:], strict=False):
        link = _link(study, older, newer, by_version[older], by_version[newer])
        if link is not None:
            links.append(link)
    return links


def _link(
    study: StudyRef, older: str, newer: str, older_medians: dict[int, float], newer_medians: dict[int, float]
) -> VersionLink | None:
    common = sorted(set(older_medians) & set(newer_medians))
    if not common:
        return None
    log_sum = sum(math.log(newer_medians[clients] / older_medians[clients]) for clients in common)
    ratio = math.exp(log_sum / len(common))
    return VersionLink(older_version=older, newer_version=newer, ratio=ratio, study=study, clients=tuple(common))


def _choose_per_pair(
    links: Iterable[VersionLink],
) -> tuple[dict[tuple[str, str], VersionLink], dict[tuple[str, str], tuple[VersionLink, ...]]]:
    by_pair: dict[tuple[str, str], list[VersionLink]] = defaultdict(list)
    for link in links:
        by_pair[link.pair].append(link)
    chosen, others = {}, {}
    for pair, candidates in by_pair.items():
        ranked = sorted(candidates, key=_link_preference, reverse=True)
        chosen[pair], others[pair] = ranked[0], tuple(ranked[1:])
    return chosen, others


def _link_preference(link: VersionLink) -> tuple[int, int, int]:
    return (link.study.year, len(link.clients), link.study.study_id)


def _follow(
    start: IndexPoint,
    outgoing: Mapping[str, list[VersionLink]],
    others: Mapping[tuple[str, str], tuple[VersionLink, ...]],
) -> list[IndexPoint]:
    chain: list[IndexPoint] = []
    current = start
    while outgoing.get(current.version):
        link = min(outgoing[current.version], key=lambda candidate: version_sort_key(candidate.newer_version))
        current = IndexPoint(
            version=link.newer_version,
            index=current.index * link.ratio,
            segment=start.segment,
            starts_segment=False,
            link=link,
            other_links=others.get(link.pair, ()),
        )
        chain.append(current)
    return chain


@dataclass(frozen=True)
class ScenarioTrend:
    """Everything the trends page shows for one scenario.

    `index` is the chained version index; `links` every study's link, used or not; `studies` the
    studies with figures for this scenario, oldest first; `points` theirs, by study, build, clients.
    """

    scenario_id: int
    scenario_slug: str
    scenario_name: str
    index: list[IndexPoint]
    links: list[VersionLink]
    studies: list[StudyRef]
    points: list[Point]


def scenario_trend(
    scenario: tuple[int, str, str], studies: Mapping[int, StudyRef], points: Iterable[Point]
) -> ScenarioTrend:
    """Assemble one scenario's trend from its points: links per study, then the chained index.

    `scenario` is (id, slug, name); `studies` maps study id to its reference.
    """
    by_study: dict[int, list[Point]] = defaultdict(list)
    for point in points:
        by_study[point.study_id].append(point)
    refs = sorted((studies[study_id] for study_id in by_study), key=lambda ref: (ref.year, ref.study_id))
    links = [
        link
        for ref in refs
        for link in study_links(ref, {(p.build_version, p.clients): p.median for p in by_study[ref.study_id]})
    ]
    ordered_points = [point for ref in refs for point in sorted(by_study[ref.study_id], key=_point_order)]
    return ScenarioTrend(
        scenario_id=scenario[0],
        scenario_slug=scenario[1],
        scenario_name=scenario[2],
        index=chained_version_index(links),
        links=links,
        studies=refs,
        points=ordered_points,
    )


def _point_order(point: Point) -> tuple[int, str, int]:
    return (version_sort_key(point.build_version), point.build_name, point.clients)
