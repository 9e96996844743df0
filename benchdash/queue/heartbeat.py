"""A running attempt's heartbeat, written from a thread of its own, and what the attempt asks the store."""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from benchdash.queue.outage_mark import note_store_unreachable
from benchdash.store_retry import STORE_UNREACHABLE, backoff_s
from benchdash.studies.lifecycle import services

logger = logging.getLogger(__name__)


class AttemptWatch:
    """What the running attempt asks the store: go on or stop; and its heartbeat, which it writes."""

    def __init__(self, trial_id: int, attempt: int) -> None:
        self.trial_id = trial_id
        self.attempt = attempt
        # Set while the attempt stores its own outcome: a beat refused then is the trial's ordinary end.
        self.storing = False

    def should_stop(self) -> bool:
        """True once the study is cancelled or a later attempt took over; False while the store cannot tell:
        an outage of the store is no reason to stop a run (the heartbeat thread rides it out)."""
        try:
            current = services.attempt_is_current(trial_id=self.trial_id, attempt=self.attempt)
        except STORE_UNREACHABLE:
            connection.close()
            return False
        return not current

    def beat(self) -> bool:
        """One heartbeat; False when the store refused it (this attempt is no longer the current one)."""
        return services.trial_heartbeat(trial_id=self.trial_id, attempt=self.attempt)


@contextmanager
def heartbeat(watch: AttemptWatch) -> Iterator[None]:
    """Write the attempt's heartbeat every TRIAL_HEARTBEAT_S while the block runs, from a thread of its own;
    only the end of the block stops it."""
    stop = threading.Event()
    beat = threading.Thread(target=_beat, args=(watch, stop), daemon=True, name=f"heartbeat-{watch.trial_id}")
    beat.start()
    try:
        yield
    finally:
        stop.set()
        beat.join(timeout=10)


def _beat(watch: AttemptWatch, stop: threading.Event) -> None:
    """A store error is logged and tried again after a short back-off; it never ends the thread."""
    failures = 0
    wait_s: float = settings.TRIAL_HEARTBEAT_S
    try:
        while not stop.wait(wait_s):
            try:
                if not watch.beat() and not watch.storing:
                    logger.warning("trial %s: attempt %s is no longer current", watch.trial_id, watch.attempt)
                failures, wait_s = 0, settings.TRIAL_HEARTBEAT_S
            except Exception as error:  # noqa: BLE001 (whatever the store did, the next beat tries again)
                connection.close()
                if isinstance(error, STORE_UNREACHABLE):
                    note_store_unreachable()
                failures += 1
                wait_s = min(backoff_s(failures), settings.TRIAL_HEARTBEAT_S)
                logger.warning("trial %s: heartbeat failed (%s), again in %.1f s", watch.trial_id, error, wait_s)
    finally:
        connection.close()
