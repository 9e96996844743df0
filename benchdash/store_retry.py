"""Riding out a store that goes away for a while (a restart of its PostgreSQL): try again with a short back-off."""

import itertools
import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

# The store's errors that pass: it restarts, or refuses connections for a while.
STORE_UNREACHABLE = (OperationalError, InterfaceError)
# Waits between tries while the store is unreachable: short, so a heartbeat is back within seconds.
STORE_BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 5.0)
# How long an ended attempt waits for the store to take its outcome before giving it up to beat.
STORE_PATIENCE_S = 600

Result = TypeVar("Result")


def with_store_retry(action: Callable[[], Result], what: str, patience_s: float = STORE_PATIENCE_S) -> Result:
    """action(), tried again with a short back-off while the store is unreachable, for up to patience_s."""
    deadline = time.monotonic() + patience_s
    for tries in itertools.count(1):
        try:
            return action()
        except STORE_UNREACHABLE as error:
            connection.close()  # the next try opens a fresh connection
            if time.monotonic() > deadline:
                raise
            logger.warning("could not %s (try %s): %s; trying again", what, tries, error)
            time.sleep(backoff_s(tries))
    raise AssertionError("itertools.count never ends")


def backoff_s(failures: int) -> float:
    return STORE_BACKOFF_S[min(failures, len(STORE_BACKOFF_S)) - 1]
