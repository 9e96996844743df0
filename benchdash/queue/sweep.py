"""The sweep for what lost its worker: trials put back, tasks sent again, outputs a crash left half-made, bisects
whose step ended without its task moved on.

Beat sends it every REQUEUE_EVERY_S; every worker also puts back lost trials itself, as often, from a thread of its
main process (sweep_from_worker), and so does a trial's task that finds its host busy: recovery does not wait for
beat, which stays the one that finishes outputs and moves bisects on (under the step's row lock: once). Every step is
one conditional UPDATE, so that several sweeps at once never both put back (or fail) the same attempt, and a task sent
twice is harmless: only one claim succeeds, and the trial goes to whichever idle worker serving its host takes it.
"""

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import close_old_connections, connection

from benchdash.changes.bisects import bisect_advance, bisects_behind
from benchdash.queue.broker_mark import broker_emptied
from benchdash.queue.outage_mark import note_store_unreachable, store_up_since
from benchdash.store_retry import STORE_UNREACHABLE
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trials_outputs_repair

logger = logging.getLogger(__name__)


def put_back_orphans() -> list[int]:
    """Put back trials whose worker vanished and resend studies with no task in flight (at once when the broker lost
    its data); returns the trials resent."""
    resent = _unless_store_away(
        lambda: services.trials_orphaned(broker_emptied=broker_emptied(), store_up_since=store_up_since())
    )
    if resent:
        logger.warning("resent orphaned trials: %s", resent)
    return resent


def sweep_orphans() -> list[int]:
    """Beat's sweep: put_back_orphans, then finish the outputs of trials whose worker died right after storing them,
    then move on the bisects whose step ended without its advance_bisect (benchdash/queue/study_end.py)."""
    resent = put_back_orphans()
    if repaired := _unless_store_away(trials_outputs_repair):
        logger.warning("repaired the outputs a crash left behind of trials: %s", repaired)
    if moved := _unless_store_away(bisects_moved_on):
        logger.warning("moved on the bisects of the ended step studies %s", moved)
    return resent


def bisects_moved_on() -> list[int]:
    """The step studies whose bisect this sweep moved on."""
    return [study_id for study_id in bisects_behind() if bisect_advance(study_id=study_id) is not None]


def _unless_store_away(look: Callable[[], list[int]]) -> list[int]:
    """The trials look() found, or none while the store is away, which is marked so that the silence it caused is
    not counted (outage_mark.py)."""
    try:
        return look()
    except STORE_UNREACHABLE as error:
        connection.close()
        note_store_unreachable()
        logger.warning("could not look for lost trials: %s", error)
        return []


def sweep_from_worker() -> None:
    """As a worker gets ready: put back lost trials every REQUEUE_EVERY_S from a thread of its main process, so that
    an idle worker takes over a stale trial with beat down, whenever the trial was lost."""
    threading.Thread(target=_sweep_every, daemon=True, name="lost-trials").start()


def _sweep_every() -> None:
    """Whatever one sweep met, the next one tries again."""
    while True:
        time.sleep(settings.REQUEUE_EVERY_S)
        close_old_connections()
        try:
            put_back_orphans()
        except Exception:  # noqa: BLE001 (a sweep that failed is no reason to stop sweeping)
            connection.close()
            logger.exception("the worker's sweep for lost trials failed; again in %s s", settings.REQUEUE_EVERY_S)
