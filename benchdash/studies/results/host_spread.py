"""What a DB host's recent studies say about its run-to-run spread, per scenario and client count: the history the
pooled t interval borrows (pooled.py) and the preview's expected spread.

Recent studies: measured studies on the same DB host that ended (done) and were created before the study in
question, newest first, up to RECENT_STUDIES of them; every cell of theirs with two runs or more adds its
within-cell squares of log TPS and runs - 1 degrees of freedom. The same study always gets the same history, so
its page and its adaptive rule agree.

A host's kind (inventory/host_kind.py: its cloud template's instance type and image, or the fingerprint of its
facts) shares its history: the recent studies of every host of the kind, the host's own among them, pooled the same
way. Per scenario and client count the host's own history wins once it pools OWN_HISTORY_MIN_STUDIES studies or more
and is usable (enough degrees of freedom, pooled.py); else the kind's where it is usable; else whatever the host has.
A new host (every cloud study's is new) thus borrows its kind's spread from its first study on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from django.utils.translation import ngettext

from benchdash.inventory.host_kind import host_kind, hosts_of_kind
from benchdash.inventory.models import Host
from benchdash.studies.models import Study, StudyPoint
from benchdash.studies.results.pooled import HostSpread, squares

RECENT_STUDIES = 10
# A host's own history of a cell wins over its kind's once it pools this many studies: one study is one day's noise.
OWN_HISTORY_MIN_STUDIES = 2
SpreadKey = tuple[int, int]  # scenario, clients


def host_spreads(
    host_id: int | None, before: datetime | None, exclude_study: int | None = None
) -> dict[SpreadKey, HostSpread]:
    """The pooled spread of each scenario x clients in the host's own recent studies created before `before`."""
    if host_id is None:
        return {}
    return _recent_spreads([host_id], before, exclude_study)


def spread_history(
    host: Host | None, before: datetime | None, exclude_study: int | None = None
) -> dict[SpreadKey, HostSpread]:
    """The spread each scenario x clients borrows on the host: its own recent studies', or its kind's (the module's
    rule), each HostSpread saying how many studies it pools and, for the kind's, the kind."""
    if host is None:
        return {}
    own = host_spreads(host.pk, before, exclude_study)
    kind = host_kind(host)
    if kind is None:
        return own
    kindred = _recent_spreads(hosts_of_kind(kind), before, exclude_study, kind.describe())
    return {key: _preferred(own.get(key), kindred.get(key)) for key in own.keys() | kindred.keys()}


def spread_source(spread: HostSpread) -> str:
    """Where a spread comes from, in words: "from 4 studies on m5a.8xlarge instances", "from 3 recent studies on
    this host"."""
    return source_words(spread.studies, spread.kind)


def source_words(studies: int, kind: str = "") -> str:
    """The words of spread_source: from `studies` studies on the kind, or with no kind on this host."""
    if kind:
        words = ngettext("from %(count)s study on %(kind)s", "from %(count)s studies on %(kind)s", studies)
    else:
        words = ngettext(
            "from %(count)s recent study on this host", "from %(count)s recent studies on this host", studies
        )
    return words % {"count": studies, "kind": kind}


def _preferred(own: HostSpread | None, kindred: HostSpread | None) -> HostSpread:
    if own is not None and own.usable and own.studies >= OWN_HISTORY_MIN_STUDIES:
        return own
    if kindred is not None and kindred.usable:
        return kindred
    chosen = own or kindred
    assert chosen is not None  # a key of one of the two
    return chosen


def _recent_spreads(
    host_ids: list[int], before: datetime | None, exclude_study: int | None, kind: str = ""
) -> dict[SpreadKey, HostSpread]:
    """The pooled spread of each scenario x clients in the recent studies on any of the hosts, with how many
    studies each pools; `kind` names the hosts' kind where they are not the DB host alone."""
    studies = _recent_studies(host_ids, before, exclude_study)
    points = StudyPoint.objects.filter(study_id__in=studies, n__gte=2)
    rows = list(points.values_list("study_id", "scenario_id", "clients", "runs"))
    counted: dict[SpreadKey, set[int]] = defaultdict(set)
    for study, scenario, clients, runs in rows:
        if len(runs) >= 2 and min(runs) > 0:
            counted[(scenario, clients)].add(study)
    pooled = pooled_by_cell(row[1:] for row in rows)
    return {key: replace(spread, studies=len(counted[key]), kind=kind) for key, spread in pooled.items()}


def pooled_by_cell(rows: Iterable[tuple[int, int, Sequence[float]]]) -> dict[SpreadKey, HostSpread]:
    """Pool (scenario, clients, runs) rows into one HostSpread per scenario x clients."""
    total: dict[SpreadKey, float] = defaultdict(float)
    degrees: dict[SpreadKey, int] = defaultdict(int)
    for scenario, clients, runs in rows:
        if len(runs) >= 2 and min(runs) > 0:
            total[(scenario, clients)] += squares(runs)
            degrees[(scenario, clients)] += len(runs) - 1
    return {key: HostSpread(total[key] / degrees[key], degrees[key]) for key in degrees}


def study_spreads(study: Study) -> dict[SpreadKey, HostSpread]:
    """The history a study's cells borrow: its DB host's recent studies before it, or its kind's."""
    return spread_history(study.db_host, study.created_at, exclude_study=study.pk)


def _recent_studies(host_ids: list[int], before: datetime | None, exclude_study: int | None = None) -> list[int]:
    """The ids of the recent studies on any of the hosts (the module's "recent studies"), newest first."""
    recent = Study.objects.filter(db_host_id__in=host_ids, kind=Study.Kind.MEASURED, status=Study.Status.DONE)
    if before is not None:
        recent = recent.filter(created_at__lt=before)
    if exclude_study is not None:
        recent = recent.exclude(pk=exclude_study)
    return list(recent.order_by("-created_at").values_list("pk", flat=True)[:RECENT_STUDIES])


@dataclass(frozen=True)
class HostHistory:
    """What a host's page says of its noise history: its kind in words ("" without one), its own recent studies and
    those on hosts of its kind (its own among them), and which of the two a study there borrows, in words ("":
    neither has a study yet)."""

    kind: str
    own_studies: int
    kind_studies: int
    borrowed: str


def host_history(host: Host) -> HostHistory:
    """The host page's summary of its noise history, by the module's rule taken over the whole host rather than
    cell by cell (a study's page says what each of its intervals borrowed)."""
    own = len(_recent_studies([host.pk], None))
    kind = host_kind(host)
    kindred = len(_recent_studies(hosts_of_kind(kind), None)) if kind else 0
    described = kind.describe() if kind else ""
    if own >= OWN_HISTORY_MIN_STUDIES or (own and not kindred):
        borrowed = source_words(own)
    elif kindred:
        borrowed = source_words(kindred, described)
    else:
        borrowed = ""
    return HostHistory(described, own, kindred, borrowed)
