"""Alerts, from the queue's side: a new change point (changes_found), an official study's end (study_ended) or a
study marked official (series_changed with its study_id) sends the task that raises the alerts; an alert due
(alert_due) sends send_alert. Every signal comes after commit. A broker that cannot take the task now loses the alert
(logged): the study or the refresh that raised it has committed and goes on."""

import logging
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.queue.tasks import raise_change_alerts, raise_study_alerts, send_alert

logger = logging.getLogger(__name__)


def _send(task: Any, *args: object) -> None:
    try:
        task.apply_async(args, ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take %s%s (%s)", task.name, args, error)


def send_change_alerts(*, change_ids: list[int], **_: Any) -> None:
    _send(raise_change_alerts, change_ids)


def send_study_alerts(*, study_id: int | None = None, **_: Any) -> None:
    if study_id is not None:
        _send(raise_study_alerts, study_id)


def send_alert_task(*, alert_id: int, **_: Any) -> None:
    _send(send_alert, alert_id)
