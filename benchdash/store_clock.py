"""One clock for every time that decides a trial's fate: the store's, never a worker's.

Heartbeats, the staleness cutoff, an attempt's start and end, a trial's finish and when a delayed task is due are
written and compared in the store's time, so a worker whose clock runs minutes behind or ahead is neither put back
mid-run, nor stamps wrong times, nor sends a retry too early or too late.
clock_timestamp(), not now(): now() is the start of the transaction, and a claim may wait inside its transaction.
"""

import time
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import DateTimeField, Func


class StoreNow(Func):
    """The store's time when the statement runs, as an expression for an UPDATE or a filter."""

    function = "clock_timestamp"
    template = "%(function)s()"
    output_field = DateTimeField()


def store_now() -> datetime:
    """The store's time now, read in one round trip."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        (now,) = cursor.fetchone()
    return now


def due_in(seconds: float) -> str:
    """The store's time `seconds` from now, as text a task can carry (for sleep_until)."""
    return (store_now() + timedelta(seconds=seconds)).isoformat()


def sleep_until(due_at: str, *, at_most_s: float) -> bool:
    """Sleep until the store's clock reaches due_at (from due_in; empty: now), but at most at_most_s; whether it is
    due then. The time left is read on the store's clock and slept on monotonic time: no worker's clock moves it, as
    it moves Celery's countdown (an eta stamped with the sender's clock, awaited on the receiver's)."""
    left_s = (datetime.fromisoformat(due_at) - store_now()).total_seconds() if due_at else 0.0
    time.sleep(min(max(left_s, 0.0), at_most_s))
    return left_s <= at_most_s


def store_started_at() -> datetime:
    """When the store's PostgreSQL last started, in its own time: no heartbeat could be written before."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_postmaster_start_time()")
        (started,) = cursor.fetchone()
    return started
