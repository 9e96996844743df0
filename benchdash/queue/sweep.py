"""The sweep for what lost its worker: trials put back, tasks sent again, outputs a crash left half-made.

Beat sends it every REQUEUE_EVERY_S, and a trial's task that finds its host busy runs it. Every step is one
conditional UPDATE, so that several sweeps at once never both put back (or fail) the same attempt, and a task sent
twice is harmless: only one claim succeeds.
"""

import logging

from django.db import connection

from benchdash.queue.broker_mark import broker_emptied
from benchdash.queue.outage_mark import note_store_unreachable, store_up_since
from benchdash.store_retry import STORE_UNREACHABLE
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trials_outputs_repair

logger = logging.getLogger(__name__)


def sweep_orphans() -> list[int]:
    """Put back trials whose worker vanished and resend studies with no task in flight (at once when the broker lost
    its data); finish the outputs of trials whose worker died right after storing them. Returns the trials resent;
    none while the store is away, which is marked so that the silence it caused is not counted (outage_mark.py)."""
    try:
        resent = services.trials_orphaned(broker_emptied=broker_emptied(), store_up_since=store_up_since())
        repaired = trials_outputs_repair()
    except STORE_UNREACHABLE as error:
        connection.close()
        note_store_unreachable()
        logger.warning("could not look for lost trials: %s", error)
        return []
    if resent:
        logger.warning("resent orphaned trials: %s", resent)
    if repaired:
        logger.warning("repaired the outputs a crash left behind of trials: %s", repaired)
    return resent
