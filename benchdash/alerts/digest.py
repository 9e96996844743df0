"""The weekly digest: for each subscriber, each subscription with how many alerts it raised in the week (trial
mode's recorded ones count: that is how often it would have fired), and each watched series' spread (the coefficient
of variation of its points) with the alerts it raised. Sent by e-mail by the beat task send_digests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import Count, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchdash.alerts.delivery import email_send
from benchdash.alerts.models import Alert, Subscription
from benchdash.changes.queries import all_series
from benchdash.changes.series import Series
from workers.spread import coefficient_of_variation

WEEK = timedelta(days=7)


def digest_lines(subscriptions: Sequence[Subscription], series: Sequence[Series], since: datetime) -> list[str]:
    lines = []
    for subscription in subscriptions:
        recent = Alert.objects.filter(subscription=subscription, created_at__gte=since)
        counts = dict(recent.values_list("series_key").annotate(count=Count("pk")).values_list("series_key", "count"))
        trial = _(" (trial mode: recorded, not sent)") if subscription.trial else ""
        count = recent.count()
        raised = ngettext("%(count)d alert this week", "%(count)d alerts this week", count) % {"count": count}
        lines.append(f"{subscription.watched}: {raised}{trial}")
        for one in series:
            if subscription.covers(series_key=one.key, scenario_id=one.scenario_id, official=one.official):
                lines.append("  " + _series_line(one, counts.get(one.key, 0)))
    return lines


def _series_line(series: Series, alerts: int) -> str:
    spread = coefficient_of_variation(series.values)
    shown = "-" if spread is None else f"{spread * 100:.1f}%"
    raised = ngettext("%(count)d alert", "%(count)d alerts", alerts) % {"count": alerts}
    return _("%(series)s: spread %(spread)s, %(alerts)s") % {"series": series.title, "spread": shown, "alerts": raised}


def digests_send(*, now: datetime) -> int:
    """E-mail each member who subscribes to anything their digest of the week before `now`; how many were sent."""
    members = _subscribers()
    series = all_series() if members else []
    for member in members:
        subscriptions = list(Subscription.objects.filter(member=member).select_related("scenario", "host"))
        lines = digest_lines(subscriptions, series, now - WEEK)
        email_send(member.email, _("benchdash: your weekly alerts digest"), "\n".join(lines))
    return len(members)


def _subscribers() -> list[User]:
    with_email = Q(subscriptions__isnull=False) & ~Q(email="")
    return list(User.objects.filter(with_email).distinct())
