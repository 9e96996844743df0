"""When a study ended or was cancelled (studies.lifecycle.signals.study_ended): send clear_study_clusters to its DB
host's queue. A broker that cannot take it now leaves the clusters to beat's sweep (sweep_work_dirs)."""

import logging
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import host_queue
from benchdash.queue.tasks import clear_study_clusters

logger = logging.getLogger(__name__)


def send_clear_study_clusters(*, study_id: int, host_name: str, **_: Any) -> None:
    """The receiver of study_ended."""
    try:
        clear_study_clusters.apply_async((study_id,), queue=host_queue(host_name), ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take the clean-up of study %s (%s); beat's sweep does it", study_id, error)
