"""The chained version index: year-over-year ratios strung together into one line per scenario.

Each study compares versions on one machine, so its absolute TPS cannot be compared with another
year's, but its ratios can. Pure functions over plain data; `benchdash.trends.queries` feeds them the
points of official studies only.

The rule, as the trends page states it:

1. A link is one study's ratio between two major versions it measured (any two, not only neighbours):
   the geometric mean, over the levels both measured (client count and conditions), of newer / older.
   Peak figures compare peak with peak, whatever client count each peak was at. Two builds of one major
   in one study (13.2 and 13.4) are kept apart: each gives its own links, never a blend.
2. Where several links join the same pair of majors, one is preferred: more shared client levels;
   then the newer study (year); then a median before a mean, a peak, a single run, an unstated figure,
   a relative one; then the later study; then the newer builds.
3. Links are used nearest versions first (9.4 -> 9.6 before 9.4 -> 11), a pair's preferred link only,
   and a link is skipped when its two versions are already joined by links used before it. So a long
   link (9.6 -> 15) carries the line where no study measured the versions between, and never replaces
   a chain of studies that did.
4. Versions joined by used links form one line (segment); it starts at its oldest version = 100, and
   every other version's index is that of the version it is joined to x the link's ratio (/ the ratio
   when the link joins it from a newer version).
5. Where no official study joins a version to any version before it, a new segment starts at 100.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations

from benchdash.inventory.models import major_version, version_sort_key
from benchdash.studies.models.study import Statistic
from benchdash.studies.results.compare import Point, plausible_tps
from benchdash.studies.results.pooled import Runs, cell_interval

INDEX_START = 100.0
# Rule 2: which statistic a link is best made of, first to last.
STATISTIC_PREFERENCE = ("median", "mean", "peak", "single", "unstated", "relative")
PEAK = "peak"

Level = tuple[int | None, str]  # (clients, conditions); clients None: a study's peak, wherever it was


@dataclass(frozen=True)
class StudyRef:
    """The study a link comes from, as the trends page labels it."""

    study_id: int
    year: int
    title: str
    statistic: str = "median"
    year_inferred: bool = False
    # Why it counts although it is below the rules for an official study (Study.official_reason); empty: it met them.
    official_reason: str = ""

    @property
    def label(self) -> str:
        return f"{self.year} {self.title}"

    @property
    def statistic_label(self) -> str:
        return str(Statistic(self.statistic).label)


@dataclass(frozen=True)
class VersionLink:
    """One study's verdict on one pair of major versions for one scenario: newer = older x ratio.

    `clients` are the client levels both builds measured (empty for peak figures), `levels` the
    levels the ratio is taken over, as labels ("16", "10 · -t 100", "peak · 15 cores");
    `older_build`, `newer_build` the build versions behind the majors ("13.4", "14.0").
    """

    older_version: str
    newer_version: str
    ratio: float
    study: StudyRef
    clients: tuple[int, ...] = ()
    older_build: str = ""
    newer_build: str = ""
    levels: tuple[str, ...] = ()
    # The ratio's interval (low, high) from the runs at every level (link_interval); None: no runs behind a level.
    interval: tuple[float, float] | None = None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.older_version, self.newer_version)

    @property
    def client_levels(self) -> int:
        """How many client levels the ratio rests on; a peak comparison counts as one."""
        return len(self.clients) or (1 if self.levels else 0)


@dataclass(frozen=True)
class IndexPoint:
    """One version on the chained index line.

    `segment` counts from 1; a new segment starts (at 100) where no official study links a version to
    one before it, and `gap_from` then names the newest version of the segments before that is older
    than this one. `link` is the link that reached this version (None where a segment starts), from
    `reached_from` (older, or newer when `backward`); `other_links` are the other studies' links for
    the same pair, not used.
    """

    version: str
    index: float
    segment: int
    starts_segment: bool
    link: VersionLink | None = None
    other_links: tuple[VersionLink, ...] = field(default=())
    reached_from: str | None = None
    backward: bool = False
    gap_from: str | None = None
    # The index's interval (low, high) along the links that reached it (chained_interval); None where a link on the
    # way has none. A segment's start is 100 by definition: (100, 100).
    interval: tuple[float, float] | None = None


def chained_version_index(links: Iterable[VersionLink]) -> list[IndexPoint]:
    """Chain one scenario's links into an index (module docstring, rules 2 to 5): segment by segment,
    each in version order."""
    chosen, others = choose_per_pair(links)
    versions = sorted({version for pair in chosen for version in pair}, key=version_sort_key)
    used = used_links(chosen.values(), versions)
    segments = _segments(versions, used)
    points: list[IndexPoint] = []
    for number, members in enumerate(segments, start=1):
        gap_from = _gap_from(members[0], [version for segment in segments[: number - 1] for version in segment])
        points.extend(_segment_points(number, members, used, others, gap_from))
    return points


def choose_per_pair(
    links: Iterable[VersionLink],
) -> tuple[dict[tuple[str, str], VersionLink], dict[tuple[str, str], tuple[VersionLink, ...]]]:
    """Rule 2: the preferred link of each pair of majors, and the others, best first."""
    by_pair: dict[tuple[str, str], list[VersionLink]] = defaultdict(list)
    for link in links:
        by_pair[link.pair].append(link)
    chosen, others = {}, {}
    for pair, candidates in by_pair.items():
        ranked = sorted(candidates, key=link_preference)
        chosen[pair], others[pair] = ranked[0], tuple(ranked[1:])
    return chosen, others


def link_preference(link: VersionLink) -> tuple[int, int, int, int, int, int]:
    """Sorts the preferred link first (rule 2)."""
    statistic = link.study.statistic
    rank = STATISTIC_PREFERENCE.index(statistic) if statistic in STATISTIC_PREFERENCE else len(STATISTIC_PREFERENCE)
    return (
        -link.client_levels,
        -link.study.year,
        rank,
        -link.study.study_id,
        -version_sort_key(link.newer_build or link.newer_version),
        -version_sort_key(link.older_build or link.older_version),
    )


def used_links(chosen: Iterable[VersionLink], versions: list[str]) -> list[VersionLink]:
    """Rule 3: nearest versions first; a link is skipped when its versions are already joined."""
    position = {version: number for number, version in enumerate(versions)}
    parent = {version: version for version in versions}

    def root(version: str) -> str:
        while parent[version] != version:
            parent[version] = parent[parent[version]]
            version = parent[version]
        return version

    used = []
    span_first = sorted(
        chosen, key=lambda link: (position[link.newer_version] - position[link.older_version], link_preference(link))
    )
    for link in span_first:
        older, newer = root(link.older_version), root(link.newer_version)
        if older != newer:
            parent[newer] = older
            used.append(link)
    return used


def _segments(versions: list[str], used: list[VersionLink]) -> list[list[str]]:
    """The versions each line joins, in version order; lines ordered by their oldest version."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for link in used:
        neighbours[link.older_version].add(link.newer_version)
        neighbours[link.newer_version].add(link.older_version)
    segments, placed = [], set()
    for version in versions:
        if version in placed:
            continue
        members, queue = {version}, deque([version])
        while queue:
            for neighbour in neighbours[queue.popleft()] - members:
                members.add(neighbour)
                queue.append(neighbour)
        placed |= members
        segments.append(sorted(members, key=version_sort_key))
    return segments


def _gap_from(first: str, earlier: list[str]) -> str | None:
    older = [version for version in earlier if version_sort_key(version) < version_sort_key(first)]
    return max(older, key=version_sort_key) if older else None


def _segment_points(
    number: int,
    members: list[str],
    used: list[VersionLink],
    others: Mapping[tuple[str, str], tuple[VersionLink, ...]],
    gap_from: str | None,
) -> list[IndexPoint]:
    """Rule 4: walk the segment's used links from its oldest version (= 100)."""
    start = members[0]
    exact = (INDEX_START, INDEX_START)
    reached = {start: IndexPoint(start, INDEX_START, number, starts_segment=True, gap_from=gap_from, interval=exact)}
    queue = deque([start])
    while queue:
        current = reached[queue.popleft()]
        for link in used:
            if current.version not in link.pair:
                continue
            backward = link.newer_version == current.version
            version = link.older_version if backward else link.newer_version
            if version in reached:
                continue
            index = current.index / link.ratio if backward else current.index * link.ratio
            reached[version] = IndexPoint(
                version=version,
                index=index,
                segment=number,
                starts_segment=False,
                link=link,
                other_links=others.get(link.pair, ()),
                reached_from=current.version,
                backward=backward,
                interval=chained_interval(current.interval, link.interval, backward=backward),
            )
            queue.append(version)
    return [reached[version] for version in members]


def chained_interval(
    reached_from: tuple[float, float] | None, link: tuple[float, float] | None, *, backward: bool
) -> tuple[float, float] | None:
    """The index's interval one link on: the ends multiplied (divided, crosswise, going back to an older version).
    It holds wherever the interval of every link on the way holds."""
    if reached_from is None or link is None:
        return None
    if backward:
        return (reached_from[0] / link[1], reached_from[1] / link[0])
    return (reached_from[0] * link[0], reached_from[1] * link[1])


def link_interval(cells: Iterable[tuple[Point, Point]]) -> tuple[float, float] | None:
    """The interval of a link's ratio from each level's (newer, older) runs: the geometric mean of the levels'
    interval ends (pooled.cell_interval, the runs' own spread), which holds the geometric mean of the ratios
    wherever every level's interval holds its own; None where a level has no runs to draw one from."""
    lows, highs = [], []
    for newer, older in cells:
        interval = cell_interval(Runs(newer.runs, newer.rounds), Runs(older.runs, older.rounds), None)
        if interval is None:
            return None
        lows.append(math.log(interval.low))
        highs.append(math.log(interval.high))
    if not lows:
        return None
    return (math.exp(sum(lows) / len(lows)), math.exp(sum(highs) / len(highs)))


def study_links(study: StudyRef, points: Iterable[Point]) -> list[VersionLink]:
    """The links one study gives for one scenario (rule 1): one per pair of its builds of different majors.

    The ratio of a pair is the geometric mean, over the levels both builds measured, of newer / older.
    A study with three versions (9.4, 9.6, 11) gives three links (9.4 -> 9.6, 9.6 -> 11, 9.4 -> 11).
    For relative statistics (baseline = 100) the figures are already an index and the same arithmetic
    holds; peak figures are compared peak with peak.
    """
    figures: dict[int, dict[Level, Point]] = defaultdict(dict)
    versions: dict[int, str] = {}
    for point in points:
        if plausible_tps(point.figure):
            clients = None if study.statistic == PEAK else point.clients
            figures[point.build_id][(clients, point.conditions)] = point
            versions[point.build_id] = point.build_version
    ordered = sorted(versions, key=lambda build_id: (version_sort_key(versions[build_id]), build_id))
    links = []
    for older, newer in combinations(ordered, 2):
        if major_version(versions[older]) == major_version(versions[newer]):
            continue
        link = _link(study, (versions[older], figures[older]), (versions[newer], figures[newer]))
        if link is not None:
            links.append(link)
    return links


def _link(
    study: StudyRef, older: tuple[str, dict[Level, Point]], newer: tuple[str, dict[Level, Point]]
) -> VersionLink | None:
    common = sorted(set(older[1]) & set(newer[1]), key=lambda level: (level[0] or 0, level[1]))
    if not common:
        return None
    log_sum = sum(math.log(newer[1][level].figure / older[1][level].figure) for level in common)
    return VersionLink(
        older_version=major_version(older[0]),
        newer_version=major_version(newer[0]),
        ratio=math.exp(log_sum / len(common)),
        study=study,
        clients=tuple(sorted({clients for clients, _conditions in common if clients is not None})),
        older_build=older[0],
        newer_build=newer[0],
        levels=tuple(_level_label(level) for level in common),
        interval=link_interval((newer[1][level], older[1][level]) for level in common),
    )


def _level_label(level: Level) -> str:
    clients, conditions = level
    text = PEAK if clients is None else str(clients)
    return f"{text} · {conditions}" if conditions else text


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
    links = [link for ref in refs for link in study_links(ref, by_study[ref.study_id])]
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


def _point_order(point: Point) -> tuple[int, str, int, str]:
    return (version_sort_key(point.build_version), point.build_name, point.clients, point.conditions)


@dataclass(frozen=True)
class LinkVerdict:
    """Whether a link carries the index: "used", "preferred" (another study's link of the same pair was
    preferred, rule 2) or "joined" (its versions were already joined by nearer links, rule 3)."""

    link: VersionLink
    verdict: str


def link_verdicts(links: Iterable[VersionLink], index: Iterable[IndexPoint]) -> list[LinkVerdict]:
    """Every link of a scenario with what became of it, in version order: the page lists them all."""
    links = list(links)
    chosen, _others = choose_per_pair(links)
    used = [point.link for point in index if point.link is not None]
    verdicts = [
        LinkVerdict(link, "used" if link in used else "preferred" if chosen[link.pair] != link else "joined")
        for link in links
    ]
    return sorted(
        verdicts,
        key=lambda verdict: (
            version_sort_key(verdict.link.older_version),
            version_sort_key(verdict.link.newer_version),
            link_preference(verdict.link),
        ),
    )
