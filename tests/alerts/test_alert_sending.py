"""Sending alerts on real parts: a local SMTP server and a local HTTP receiver. The e-mail names the series and the
change; the webhook's body is signed with the subscription's secret; a dead endpoint is tried again, then the failure
is recorded, and the study that raised the alert is as it was; a trial subscription sends nothing; a redirect is not
followed; a secret is stored encrypted."""

import json
from ipaddress import ip_address

import pytest

from benchdash.alerts.delivery import PinnedHTTPConnection
from benchdash.alerts.messages import SIGNATURE_HEADER, signature
from benchdash.alerts.models import Alert, Subscription, Watch
from benchdash.alerts.raising import alerts_for_changes, alerts_for_study, comparison_path
from benchdash.queue.tasks import send_alert
from benchdash.studies.models import Study
from tests.alerts.helpers import (
    SECRET,
    member_with_email,
    minor_step,
    official_slower_study,
    series_subscription,
    subscribe,
)
from tests.sshd import free_port

# transaction=True: the task closes the connection a test transaction would hold (close_old_connections).
pytestmark = pytest.mark.django_db(transaction=True)


def test_an_alert_goes_by_e_mail_through_smtp_with_the_series_and_the_change_in_its_subject(smtp_server):
    change = minor_step()
    series_subscription(member_with_email(), change)
    [alert] = alerts_for_changes(change_ids=[change.pk])
    send_alert.apply(args=(alert.pk,))
    [message] = smtp_server.mailbox.messages
    assert smtp_server.mailbox.recipients == [["watcher@example.org"]]
    assert message["Subject"].strip() == f"{change.series_title}: slowdown of -8.0% between 17.2 and 17.3"
    assert comparison_path(change) in message.get_payload(decode=True).decode()
    alert.refresh_from_db()
    assert (alert.status, alert.attempts, alert.sent_at is not None) == (Alert.Status.SENT, 1, True)


def test_a_webhook_gets_the_json_signed_with_the_shared_secret(http_receiver):
    change = minor_step()
    series_subscription(member_with_email(), change, by_email=False, webhook_url=http_receiver.url)
    [alert] = alerts_for_changes(change_ids=[change.pk])
    send_alert.apply(args=(alert.pk,))
    [received] = http_receiver.received
    assert received.headers[SIGNATURE_HEADER] == signature(SECRET, received.body)
    assert received.headers["Content-Type"] == "application/json"
    body = received.json()
    assert body["text"].startswith(alert.subject)
    assert body["@type"] == "MessageCard"
    assert "delivered" not in body
    alert.refresh_from_db()
    assert alert.status == Alert.Status.SENT


def test_a_dead_endpoint_is_tried_again_then_recorded_as_failed_and_the_study_is_untouched():
    study = official_slower_study()
    dead = f"http://127.0.0.1:{free_port()}/hook"
    subscribe(member_with_email(), watch=Watch.HOST, host=study.db_host, by_email=False, webhook_url=dead)
    [alert] = alerts_for_study(study_id=study.pk)
    before = Study.objects.values().get(pk=study.pk)
    send_alert.apply(args=(alert.pk,))
    alert.refresh_from_db()
    assert alert.status == Alert.Status.FAILED
    assert alert.attempts == send_alert.max_retries + 1
    assert "Connection refused" in alert.error
    assert Study.objects.values().get(pk=study.pk) == before


def test_an_endpoint_that_answers_an_error_fails_and_one_that_redirects_is_not_followed(http_receiver):
    change = minor_step()
    http_receiver.status, http_receiver.redirect_to = 302, "http://169.254.169.254/latest/meta-data/"
    series_subscription(member_with_email(), change, by_email=False, webhook_url=http_receiver.url)
    [alert] = alerts_for_changes(change_ids=[change.pk])
    send_alert.apply(args=(alert.pk,))
    alert.refresh_from_db()
    assert alert.status == Alert.Status.FAILED
    assert len(http_receiver.received) == send_alert.max_retries + 1
    assert "302" in alert.error


def test_a_channel_that_took_the_alert_is_not_sent_again_when_another_fails(smtp_server):
    change = minor_step()
    dead = f"http://127.0.0.1:{free_port()}/hook"
    series_subscription(member_with_email(), change, webhook_url=dead)
    [alert] = alerts_for_changes(change_ids=[change.pk])
    send_alert.apply(args=(alert.pk,))
    assert len(smtp_server.mailbox.messages) == 1
    alert.refresh_from_db()
    assert (alert.status, alert.payload["delivered"]) == (Alert.Status.FAILED, ["email"])


def test_a_trial_subscription_sends_nothing(smtp_server, http_receiver):
    change = minor_step()
    series_subscription(member_with_email(), change, webhook_url=http_receiver.url, trial=True)
    [alert] = alerts_for_changes(change_ids=[change.pk])
    assert send_alert.apply(args=(alert.pk,)).get() == ""
    assert (smtp_server.mailbox.messages, http_receiver.received) == ([], [])
    alert.refresh_from_db()
    assert (alert.status, alert.attempts) == (Alert.Status.RECORDED, 0)


def test_the_webhook_secret_is_stored_encrypted_and_read_back():
    subscription = subscribe(
        member_with_email(), watch=Watch.SERIES, series_key="trend:x:1", webhook_url="http://127.0.0.1:1/"
    )
    stored = Subscription.objects.values_list("webhook_secret_encrypted", flat=True).get(pk=subscription.pk)
    assert SECRET not in stored and SECRET not in json.dumps(stored)
    assert Subscription.objects.get(pk=subscription.pk).webhook_secret == SECRET


def test_a_webhook_connects_to_the_address_it_checked_never_resolving_the_name_again(http_receiver):
    """DNS rebinding: the name is resolved once, checked, and the connection made to that address. A name that does
    not resolve at all still reaches the pinned address, its Host header kept."""
    port = http_receiver.server_address[1]
    connection = PinnedHTTPConnection("hook.invalid", port=port, pinned=ip_address("127.0.0.1"), timeout=10)
    connection.request("POST", "/hook", body=b"{}", headers={"Content-Type": "application/json"})
    assert connection.getresponse().status == 200
    [received] = http_receiver.received
    assert received.headers["Host"] == f"hook.invalid:{port}"
