"""When a study ended or was cancelled (studies.lifecycle.signals.study_ended): send terminate_cloud_study if it
ran on cloud instances. A broker that cannot take it now leaves them to beat's reaper (reap_cloud_instances)."""

import logging
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.cloud.models import CloudStudy

logger = logging.getLogger(__name__)


def send_terminate_instances(*, study_id: int, **_: Any) -> None:
    """The receiver of study_ended."""
    from benchdash.cloud.tasks import terminate_cloud_study

    if not CloudStudy.objects.filter(study_id=study_id).exists():
        return
    try:
        terminate_cloud_study.apply_async((study_id,), ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take the end of study %s's instances (%s); beat reaps them", study_id, error)
