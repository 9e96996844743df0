"""When a study ended or was cancelled (studies.lifecycle.signals.study_ended, sent after commit): send its tasks, and
nothing more, whichever process ended it (a cancel's web request, a trial's task, beat's sweep). clear_study_clusters
goes to the queue of each of its DB hosts; advance_bisect, for a bisect's step, and evaluate_calibration, for a
calibration's study, to the default queue (the change points and the cloud instances: changes.py,
benchdash/cloud/study_end.py). A broker that cannot take one now leaves the
clusters to beat's sweep (sweep_work_dirs) and the bisect to beat's sweep for what lost its worker (sweep.py)."""

import logging
from collections.abc import Sequence
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import host_queue
from benchdash.changes.models import BisectStep
from benchdash.queue.tasks import advance_bisect, clear_study_clusters, evaluate_calibration
from benchdash.studies.models import Calibration

logger = logging.getLogger(__name__)


def send_clear_study_clusters(*, study_id: int, host_name: str, host_names: Sequence[str] = (), **_: Any) -> None:
    """The receiver of study_ended: a clean-up for each DB host of the study, on that host's queue."""
    for name in host_names or [host_name]:
        try:
            clear_study_clusters.apply_async((study_id, name), queue=host_queue(name), ignore_result=True)
        except BrokerUnreachable as error:
            logger.warning("the broker did not take the clean-up of study %s on %s (%s)", study_id, name, error)


def send_advance_bisect(*, study_id: int, **_: Any) -> None:
    """The receiver of study_ended: the next step of the bisect whose step this study is, if its verdict is due."""
    if not BisectStep.objects.filter(study_id=study_id, verdict="").exists():
        return
    try:
        advance_bisect.apply_async((study_id,), ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take the bisect step of study %s (%s); beat moves it on", study_id, error)


def send_evaluate_calibration(*, study_id: int, **_: Any) -> None:
    """The receiver of study_ended: the evaluation of the calibration whose study this is. A broker that cannot take
    it leaves it to `calibrate --wait`, or to the next end of the study (a retry of its failed trials)."""
    if not Calibration.objects.filter(study_id=study_id).exists():
        return
    try:
        evaluate_calibration.apply_async((study_id,), ignore_result=True)
    except BrokerUnreachable as error:
        logger.warning("the broker did not take the evaluation of calibration study %s (%s)", study_id, error)
