"""The weekly digest, by e-mail through a local SMTP server: each subscription's alerts of the week (trial mode's
recorded ones too), each watched series' spread and alerts; an alert older than a week is not counted."""

from datetime import timedelta

import pytest
from django.utils import timezone

from benchdash.alerts.digest import digests_send
from benchdash.alerts.models import Alert, Watch
from benchdash.alerts.raising import alerts_for_changes
from tests.alerts.helpers import member_with_email, minor_step, series_subscription, subscribe
from workers.spread import coefficient_of_variation

pytestmark = pytest.mark.django_db


def test_the_digest_lists_each_watched_series_spread_and_its_alerts_of_the_week(smtp_server):
    change = minor_step()
    member = member_with_email()
    series_subscription(member, change, trial=True)
    subscribe(member, watch=Watch.SERIES, series_key="trend:nothing-here:1")
    alerts_for_changes(change_ids=[change.pk])
    assert digests_send(now=timezone.now()) == 1
    [message] = smtp_server.mailbox.messages
    body = message.get_content()
    spread = coefficient_of_variation(change.series_values) * 100
    assert message["Subject"].strip() == "benchdash: your weekly alerts digest"
    assert f"{change.series_key}: 1 alert this week (trial mode: recorded, not sent)" in body
    assert f"  {change.series_title}: spread {spread:.1f}%, 1 alert" in body
    assert "trend:nothing-here:1: 0 alerts this week" in body


def test_an_alert_older_than_a_week_is_not_counted(smtp_server):
    change = minor_step()
    series_subscription(member_with_email(), change)
    alerts_for_changes(change_ids=[change.pk])
    Alert.objects.update(created_at=timezone.now() - timedelta(days=8))
    digests_send(now=timezone.now())
    assert f"{change.series_key}: 0 alerts this week" in smtp_server.mailbox.messages[0].get_content()
