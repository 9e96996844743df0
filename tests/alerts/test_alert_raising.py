"""Raising alerts: a new change point alerts the subscriptions that watch its series (once, however often the task
runs), an improvement too; a trial subscription's alert is recorded, not due; an official study's slower verdict
alerts those who watch its scenario or its host, a study that is not official alerts nobody."""

import pytest
from django.db import transaction

from benchdash.alerts.models import Alert, Watch
from benchdash.alerts.raising import alerts_for_changes, alerts_for_study, comparison_path
from benchdash.alerts.signals import alert_due
from benchdash.changes.refresh import changes_refresh
from benchdash.changes.signals import changes_found
from benchdash.studies.models import Study
from tests.alerts.helpers import member_with_email, minor_step, official_slower_study, series_subscription, subscribe
from tests.factories import ScenarioFactory

pytestmark = pytest.mark.django_db


def test_a_new_change_point_alerts_the_series_subscriber_once(django_capture_on_commit_callbacks):
    change = minor_step()
    subscription = series_subscription(member_with_email(), change)
    due: list[int] = []
    alert_due.connect(lambda alert_id, **_: due.append(alert_id), weak=False, dispatch_uid="test-due")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            [alert] = alerts_for_changes(change_ids=[change.pk])
            assert alerts_for_changes(change_ids=[change.pk]) == []
    finally:
        alert_due.disconnect(dispatch_uid="test-due")
    assert (alert.subscription, alert.status, alert.kind) == (subscription, Alert.Status.PENDING, Alert.Kind.CHANGE)
    assert alert.subject.startswith(change.series_title)
    assert "slowdown of -8.0% between 17.2 and 17.3" in alert.subject
    assert comparison_path(change).startswith("/compare/?a=study%3A")  # both sides, side by side
    assert alert.payload["link"].endswith(comparison_path(change))
    assert "After / before: 91." in alert.text and "% confidence" in alert.text
    assert due == [alert.pk]


def test_an_improvement_alerts_too():
    change = minor_step(levels=(920.0, 1000.0))
    series_subscription(member_with_email(), change)
    [alert] = alerts_for_changes(change_ids=[change.pk])
    assert alert.improvement
    assert "improvement of +8.7%" in alert.subject


def test_a_trial_subscription_records_its_alert_and_sends_nothing(django_capture_on_commit_callbacks):
    change = minor_step()
    series_subscription(member_with_email(), change, trial=True)
    with django_capture_on_commit_callbacks() as callbacks:
        [alert] = alerts_for_changes(change_ids=[change.pk])
    assert alert.status == Alert.Status.RECORDED
    assert callbacks == []


def test_a_change_in_a_series_nobody_watches_alerts_nobody():
    change = minor_step()
    subscribe(member_with_email(), watch=Watch.SERIES, series_key="trend:pgecons-reference:1")
    subscribe(member_with_email("other"), watch=Watch.SCENARIO, scenario=change.scenario)  # not an official series
    assert alerts_for_changes(change_ids=[change.pk]) == []


def test_the_refresh_announces_new_change_points_after_commit_and_not_again(django_capture_on_commit_callbacks):
    found: list[list[int]] = []
    changes_found.connect(lambda change_ids, **_: found.append(change_ids), weak=False, dispatch_uid="test-found")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            change = minor_step()
        with django_capture_on_commit_callbacks(execute=True):
            changes_refresh()
    finally:
        changes_found.disconnect(dispatch_uid="test-found")
    assert found == [[change.pk]]


def test_an_official_studys_slower_verdict_alerts_its_scenarios_and_its_hosts_watchers():
    study = official_slower_study()
    scenario = study.scenarios.get()
    by_scenario = subscribe(member_with_email(), watch=Watch.SCENARIO, scenario=scenario)
    by_host = subscribe(member_with_email("host-watcher"), watch=Watch.HOST, host=study.db_host)
    subscribe(member_with_email("elsewhere"), watch=Watch.SCENARIO, scenario=ScenarioFactory())
    alerts = alerts_for_study(study_id=study.pk)
    assert {alert.subscription for alert in alerts} == {by_scenario, by_host}
    alert = alerts[0]
    assert alert.subject == f"{study}: 1 slower, 0 faster"
    assert "PostgreSQL 17.0 against PostgreSQL 16.0, pgecons-update at 8 clients: 80%" in alert.text
    assert "confidence), slower" in alert.text
    assert alert.payload["link"].endswith(f"/studies/{study.pk}/")
    assert alerts_for_study(study_id=study.pk) == []


def test_a_study_that_is_not_official_alerts_nobody():
    study = official_slower_study()
    Study.objects.filter(pk=study.pk).update(official=False)
    subscribe(member_with_email(), watch=Watch.HOST, host=study.db_host)
    assert alerts_for_study(study_id=study.pk) == []


def test_alerts_are_raised_in_their_own_transaction_so_a_repeat_rolls_back_nothing():
    change = minor_step()
    series_subscription(member_with_email(), change)
    with transaction.atomic():
        alerts_for_changes(change_ids=[change.pk])
        alerts_for_changes(change_ids=[change.pk])
    assert Alert.objects.count() == 1
