"""One clock for every time that decides a trial's fate: the store's, never a worker's.

Heartbeats, the staleness cutoff, an attempt's start and end and a trial's finish are written and compared in the
store's time, so a worker whose clock runs minutes behind or ahead is neither put back mid-run nor stamps wrong times.
clock_timestamp(), not now(): now() is the start of the transaction, and a claim may wait inside its transaction.
"""

from datetime import datetime

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


def store_started_at() -> datetime:
    """When the store's PostgreSQL last started, in its own time: no heartbeat could be written before."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_postmaster_start_time()")
        (started,) = cursor.fetchone()
    return started
