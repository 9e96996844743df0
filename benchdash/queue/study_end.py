"""When a study ended or was cancelled (studies.lifecycle.signals.study_ended): send clear_study_clusters to the queue
of each of its DB hosts. A broker that cannot take one now leaves the clusters to beat's sweep (sweep_work_dirs)."""

import logging
from collections.abc import Sequence
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import host_queue
from benchdash.queue.tasks import clear_study_clusters

logger = logging.getLogger(__name__)


def send_clear_study_clusters(*, study_id: int, host_name: str, host_names: Sequence[str] = (), **_: Any) -> None:
    """The receiver of study_ended: a clean-up for each DB host of the study, on that host's queue."""
    for name in host_names or [host_name]:
        try:
            clear_study_clusters.apply_async((study_id, name), queue=host_queue(name), ignore_result=True)
        except BrokerUnreachable as error:
            logger.warning("the broker did not take the clean-up of study %s on %s (%s)", study_id, name, error)
