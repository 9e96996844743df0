"""When the store was last out of reach: a running trial's silence is never counted across the store's own outage.

A heartbeat that could not be written while the store was down says nothing of its attempt, so a trial's silence
counts only from the latest of its heartbeat and the store's return, both in the store's time:
- the store's start (pg_postmaster_start_time()): its PostgreSQL restarted;
- a failed write: whoever could not reach the store (a heartbeat, a sweep) marks it in the broker, and the first
  sweep that reaches the store again replaces the mark with the store's time then. An outage that only refused
  connections (no restart) is seen so. While a process still cannot reach the store, each sweep finds the mark
  again: no trial is put back until the store has answered everyone for TRIAL_STALE_AFTER_S.
"""

import logging
from datetime import datetime

import redis

from benchdash.queue.broker_mark import broker_client
from benchdash.store_clock import store_now, store_started_at

logger = logging.getLogger(__name__)

# Set by whoever could not reach the store; the sweep's "back at" (the store's time, ISO) replaces it.
UNREACHABLE_MARK = "benchdash:store-unreachable"
BACK_MARK = "benchdash:store-back-at"


def note_store_unreachable() -> None:
    """Mark that this process could not reach the store; a broker away too takes no mark (the store's start still
    tells a restart)."""
    try:
        broker_client().set(UNREACHABLE_MARK, "1")
    except redis.RedisError as error:
        logger.warning("could not mark the store's outage in the broker: %s", error)


def store_up_since() -> datetime:
    """Since when the store has answered, in its time: its start, or when a sweep first reached it after the last
    failed write, when that is later (or the broker cannot tell). Called by the sweep, once it reached the store."""
    started = store_started_at()  # first: a store still away raises here, and leaves the mark for the next sweep
    try:
        client = broker_client()
        if client.getdel(UNREACHABLE_MARK) is not None:
            client.set(BACK_MARK, store_now().isoformat())
        back = client.get(BACK_MARK)
    except redis.RedisError as error:
        logger.warning("could not read the store's outage mark in the broker: %s", error)
        return started
    if not back:
        return started
    return max(started, datetime.fromisoformat(back.decode() if isinstance(back, bytes) else back))
