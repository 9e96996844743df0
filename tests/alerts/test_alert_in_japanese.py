"""Alerts are written in the site's language: in Japanese, the subject and the lines of a change's alert."""

import pytest
from django.utils import translation

from benchdash.alerts.raising import alerts_for_changes
from tests.alerts.helpers import member_with_email, minor_step, series_subscription

pytestmark = pytest.mark.django_db


def test_a_change_alert_in_japanese_names_the_series_the_sides_and_the_change():
    change = minor_step()
    series_subscription(member_with_email(), change)
    with translation.override("ja"):
        [alert] = alerts_for_changes(change_ids=[change.pk])
    assert alert.subject == f"{change.series_title}: 17.2 と 17.3 の間で -8.0% の低下"
    assert "変化前: 17.2、水準 1000.0" in alert.text
    assert alert.payload["potentialAction"][0]["name"] == "比較を開く"
