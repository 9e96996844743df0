"""What a DB host's recent studies say about its run-to-run spread, per scenario and client count: the history the
pooled t interval borrows (pooled.py) and the preview's expected spread.

Recent studies: measured studies on the same DB host that ended (done) and were created before the study in
question, newest first, up to RECENT_STUDIES of them; every cell of theirs with two runs or more adds its
within-cell squares of log TPS and runs - 1 degrees of freedom. The same study always gets the same history, so
its page and its adaptive rule agree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from benchdash.studies.models import Study, StudyPoint
from benchdash.studies.results.pooled import HostSpread, squares

RECENT_STUDIES = 10
SpreadKey = tuple[int, int]  # scenario, clients


def host_spreads(
    host_id: int | None, before: datetime | None, exclude_study: int | None = None
) -> dict[SpreadKey, HostSpread]:
    """The pooled spread of each scenario x clients in the host's recent studies created before `before`."""
    if host_id is None:
        return {}
    recent = Study.objects.filter(db_host_id=host_id, kind=Study.Kind.MEASURED, status=Study.Status.DONE)
    if before is not None:
        recent = recent.filter(created_at__lt=before)
    if exclude_study is not None:
        recent = recent.exclude(pk=exclude_study)
    studies = list(recent.order_by("-created_at").values_list("pk", flat=True)[:RECENT_STUDIES])
    rows = StudyPoint.objects.filter(study_id__in=studies, n__gte=2).values_list("scenario_id", "clients", "runs")
    return pooled_by_cell(rows)


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
    """The history a study's cells borrow: its DB host's recent studies before it."""
    return host_spreads(study.db_host_id, study.created_at, exclude_study=study.pk)
