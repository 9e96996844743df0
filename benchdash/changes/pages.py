"""What the changes pages show, assembled from the stored change points and the events that touch their series."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from benchdash.changes.charts import Marked, minor_series_figure, series_figure
from benchdash.changes.events import minor_series_events, series_events
from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.inventory.events import EventMark, event_marks
from benchdash.studies.models import Scenario, Study
from benchdash.studies.results.queries import study_results


@dataclass(frozen=True)
class SeriesBlock:
    """One series on the list page: its chart with every change marked, and the changes' rows."""

    key: str
    title: str
    kind: str
    figure_id: str
    figure: dict
    changes: list[ChangePoint]


def series_blocks(changes: Iterable[ChangePoint]) -> list[SeriesBlock]:
    """The changes grouped by series, the series with the newest change first."""
    by_series: dict[str, list[ChangePoint]] = {}
    for change in changes:
        by_series.setdefault(change.series_key, []).append(change)
    marks = event_marks()
    return [_block(number, members, marks) for number, members in enumerate(by_series.values(), start=1)]


def change_figure(
    change: ChangePoint, others: Iterable[ChangePoint] = (), marks: Sequence[EventMark] | None = None
) -> dict:
    return series_figure(
        change.series_labels,
        change.series_values,
        [marked(c) for c in (change, *others)],
        y_title=y_title(change),
        events=series_events(change, marks),
    )


def marked(change: ChangePoint) -> Marked:
    return Marked(change.after_label, change.size, change.is_new, change.confidence)


def y_title(change: ChangePoint) -> str:
    return _("index") if change.series_kind == SeriesKind.TREND else _("TPS (every run)")


def _block(number: int, changes: list[ChangePoint], marks: Sequence[EventMark]) -> SeriesBlock:
    first = changes[0]
    return SeriesBlock(
        key=first.series_key,
        title=first.series_title,
        kind=first.get_series_kind_display(),
        figure_id=f"series-{number}",
        figure=change_figure(first, changes[1:], marks),
        changes=changes,
    )


def minor_changes(study: Study) -> QuerySet[ChangePoint]:
    """The changes found in a minor series study (its TPS per minor)."""
    return ChangePoint.objects.filter(series_kind=SeriesKind.STUDY, before_study=study).select_related(
        "acknowledgement", "scenario"
    )


def minor_figures(study: Study, changes: Iterable[ChangePoint]) -> list[tuple[Scenario, str, dict]]:
    """Per scenario of a minor series study: its figure id on the page and its chart, with the changes marked."""
    figures, results, events = [], study_results(study), minor_series_events(study)
    for scenario in study.scenarios.order_by("slug"):
        points = [point for point in results if point.scenario_id == scenario.pk]
        marks = [marked(change) for change in changes if change.scenario_id == scenario.pk]
        figure = minor_series_figure(points, study.baseline_id, marks, events)
        figures.append((scenario, f"minors-{scenario.pk}", figure))
    return figures
