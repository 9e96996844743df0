"""Sending one due alert by its subscription's channels, and what came of it.

The task send_alert (benchdash/queue/tasks.py) calls alert_send once per try and retries on DeliveryFailed with
backoff; its last try marks the alert FAILED with the reason. A channel that already took the alert is not sent again
on a retry (`payload["delivered"]` lists them). The study whose end raised the alert has long committed: nothing
here touches it.
"""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from benchdash.alerts.delivery import DeliveryFailed, email_send, webhook_post
from benchdash.alerts.models import Alert
from benchdash.alerts.secrets import SecretUnreadable

EMAIL, WEBHOOK = "email", "webhook"


def alert_send(*, alert_id: int, last_try: bool) -> Alert.Status | None:
    """Send the PENDING alert on every channel not yet done; its status after, None when it was not pending."""
    alert = Alert.objects.select_related("subscription__member").filter(pk=alert_id).first()
    if alert is None or alert.status != Alert.Status.PENDING:
        return None
    Alert.objects.filter(pk=alert_id).update(attempts=F("attempts") + 1)
    try:
        for channel in _channels(alert):
            _send_on(alert, channel)
            _note_delivered(alert, channel)
    except (DeliveryFailed, SecretUnreadable) as error:
        status = Alert.Status.FAILED if last_try else Alert.Status.PENDING
        Alert.objects.filter(pk=alert_id).update(status=status, error=str(error))
        if last_try:
            return status
        raise DeliveryFailed(str(error)) from error
    Alert.objects.filter(pk=alert_id).update(status=Alert.Status.SENT, sent_at=timezone.now(), error="")
    return Alert.Status.SENT


def _channels(alert: Alert) -> list[str]:
    subscription, done = alert.subscription, alert.payload.get("delivered", [])
    wanted = [EMAIL] * subscription.by_email + [WEBHOOK] * bool(subscription.webhook_url)
    return [channel for channel in wanted if channel not in done]


def _send_on(alert: Alert, channel: str) -> None:
    subscription = alert.subscription
    if channel == EMAIL:
        email_send(subscription.member.email, alert.subject, alert.text)
    else:
        payload = {key: value for key, value in alert.payload.items() if key != "delivered"}
        webhook_post(subscription.webhook_url, subscription.webhook_secret, payload)


def _note_delivered(alert: Alert, channel: str) -> None:
    alert.payload["delivered"] = [*alert.payload.get("delivered", []), channel]
    Alert.objects.filter(pk=alert.pk).update(payload=alert.payload)
