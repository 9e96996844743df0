"""Raising alerts: which subscriptions an event concerns, and one Alert each (recorded in trial mode, else due).

Events: a new change point (benchdash/changes/signals.changes_found) and an official study's faster and slower
verdicts (a study that ends official, or is marked official). A subscription watches one series key (its change
points, official or not), one scenario (change points of official series, and official studies' verdicts on it) or
one host (its repeated studies' change points, and the verdicts of official studies run on it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse

from benchdash.alerts.messages import (
    AlertMessage,
    ChangeFacts,
    VerdictFacts,
    change_message,
    change_segments,
    verdict_message,
    webhook_payload,
)
from benchdash.alerts.models import Alert, Subscription, Watch
from benchdash.alerts.signals import send_alert_after_commit
from benchdash.changes.card import compare_query
from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.studies.models import Study
from benchdash.studies.results.comparisons import Comparison
from benchdash.studies.results.queries import study_results_compared
from benchdash.studies.results.uncertainty import Verdict, ratio_interval


def site_link(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def comparison_path(change: ChangePoint) -> str:
    """The page of the change's two sides side by side (/compare/), or its own page where a side is no one line."""
    query = compare_query(change)
    return f"{reverse('compare:sides')}?{query}" if query else reverse("changes:detail", args=[change.pk])


def change_subscriptions(change: ChangePoint) -> list[Subscription]:
    watches = Q(watch=Watch.SERIES, series_key=change.series_key)
    if change.official and change.scenario_id is not None:
        watches |= Q(watch=Watch.SCENARIO, scenario_id=change.scenario_id)
    if change.series_kind == SeriesKind.HOST:
        watches |= Q(watch=Watch.HOST, host__name=change.series_key.split(":")[1])
    return list(Subscription.objects.filter(watches).select_related("member"))


def alerts_for_changes(*, change_ids: Iterable[int]) -> list[Alert]:
    """One alert per new change point and subscription that watches its series."""
    raised = []
    for change in ChangePoint.objects.filter(pk__in=list(change_ids)):
        message = change_message(_change_facts(change), site_link(comparison_path(change)))
        for subscription in change_subscriptions(change):
            alert = _raise(subscription, message, event=f"change:{change.pk}", change=change)
            raised += [alert] if alert else []
    return raised


def _change_facts(change: ChangePoint) -> ChangeFacts:
    return ChangeFacts(
        series_title=change.series_title,
        before=change.before_label,
        after=change.after_label,
        level_before=change.mean_before,
        level_after=change.mean_after,
        size_percent=change.size_percent,
        confidence_percent=change.confidence_percent,
        improvement=change.size > 0,
        interval=_change_interval(change),
    )


def _change_interval(change: ChangePoint) -> tuple[float, float, float] | None:
    """The interval of after / before, drawn as a study's ratios are (studies/results/uncertainty.py)."""
    boundaries = ChangePoint.objects.filter(series_key=change.series_key).values_list("index", flat=True)
    before, after = change_segments(change.series_values, change.index, list(boundaries))
    interval = ratio_interval(after, before)
    return None if interval is None else (interval.low, interval.high, interval.confidence)


def alerts_for_study(*, study_id: int) -> list[Alert]:
    """One alert per subscription that watches an official study's scenario or DB host, naming the faster and
    slower verdicts it watches; nothing for a study that is not official and done, or has no such verdict."""
    study = Study.objects.filter(pk=study_id, official=True, status=Study.Status.DONE).first()
    if study is None:
        return []
    _points, comparisons = study_results_compared(study)
    settled = [one for one in comparisons if one.point.verdict in (Verdict.FASTER, Verdict.SLOWER)]
    scenario_ids = {one.point.scenario_id for one in settled}
    watches = Q(watch=Watch.SCENARIO, scenario_id__in=scenario_ids) | Q(watch=Watch.HOST, host_id=study.db_host_id)
    link = site_link(reverse("studies:detail", args=[study.pk]))
    raised = []
    for subscription in Subscription.objects.filter(watches).select_related("member") if settled else []:
        watched = [
            one
            for one in settled
            if subscription.watch == Watch.HOST or one.point.scenario_id == subscription.scenario_id
        ]
        message = verdict_message(str(study), _verdict_facts(watched), link)
        alert = _raise(subscription, message, event=f"study:{study.pk}", study=study)
        raised += [alert] if alert else []
    return raised


def _verdict_facts(comparisons: Sequence[Comparison]) -> list[VerdictFacts]:
    return [
        VerdictFacts(
            side=one.column.line_label,
            reference=one.column.reference_label,
            scenario=one.point.scenario_slug,
            clients=one.point.clients,
            ratio_percent=one.point.ratio_percent or 0,
            low=one.point.interval.low if one.point.interval else 0.0,
            high=one.point.interval.high if one.point.interval else 0.0,
            confidence=one.point.interval.confidence if one.point.interval else 0.0,
            faster=one.point.verdict == Verdict.FASTER,
        )
        for one in comparisons
    ]


def _raise(subscription: Subscription, message: AlertMessage, *, event: str, **about: object) -> Alert | None:
    """The alert, recorded (trial mode) or due after commit; None when this event already raised one here."""
    status = Alert.Status.RECORDED if subscription.trial else Alert.Status.PENDING
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                subscription=subscription,
                kind=Alert.Kind.CHANGE if event.startswith("change:") else Alert.Kind.VERDICT,
                event=event,
                series_key=getattr(about.get("change"), "series_key", ""),
                improvement=message.improvement,
                subject=message.subject[:300],
                text=message.text,
                payload=webhook_payload(message),
                status=status,
                **about,
            )
    except IntegrityError:  # alert_once_per_event: a task sent twice raises nothing new
        return None
    if status == Alert.Status.PENDING:
        send_alert_after_commit(alert.pk)
    return alert
