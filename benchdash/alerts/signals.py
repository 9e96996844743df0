"""What the alerts app tells the queue: an alert is due, send its task once this transaction commits. The alerts
app never imports the queue (the queue imports it for its tasks); benchdash/queue/apps.py connects the signal."""

from functools import partial

from django.db import transaction
from django.dispatch import Signal

# Sent after commit with alert_id.
alert_due = Signal()


def send_alert_after_commit(alert_id: int) -> None:
    transaction.on_commit(partial(alert_due.send, sender=None, alert_id=alert_id))
