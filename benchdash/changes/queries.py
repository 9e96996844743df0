"""The database side of the series: the points that series.py strings into series, read in a few queries."""

from __future__ import annotations

from typing import Any

from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.changes.series import HostStudy, Series, host_series, study_series, trend_series
from benchdash.studies.models import Study, StudyPoint
from benchdash.studies.results.queries import points_of
from benchdash.trends.change_marks import ChangeMark
from benchdash.trends.queries import trends_data


def all_series() -> list[Series]:
    """Every series: the official trends', every study's, every host's repeated designs'."""
    points = points_of(StudyPoint.objects.all(), with_runs=True)
    studies = Study.objects.values_list("id", "title", "official")
    titles = {study_id: title for study_id, title, _official in studies}
    official = {study_id: flag for study_id, _title, flag in studies}
    trends = [series for trend in trends_data() for series in trend_series(trend)]
    return trends + study_series(points, titles, official) + host_series(points, finished_measured_studies())


def finished_measured_studies() -> list[HostStudy]:
    """Studies measured here that are done, in the order they finished (a host's series run in this order)."""
    rows = (
        Study.objects.filter(kind=Study.Kind.MEASURED, status=Study.Status.DONE, db_host__isnull=False)
        .order_by("finished_at", "pk")
        .values_list("pk", "db_host__name", "duration_s", "scale", "official")
    )
    return [HostStudy(*row) for row in rows]


def index_change_marks(sender: Any, scenario_id: int, **kwargs: Any) -> list[ChangeMark]:
    """The receiver of change_marks_wanted: the changes in the scenario's official index, for its chart."""
    changes = ChangePoint.objects.filter(series_kind=SeriesKind.TREND, scenario_id=scenario_id).order_by("index")
    return [ChangeMark(c.before_label, c.after_label, c.size, c.confidence) for c in changes]
