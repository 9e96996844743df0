"""Calls made at one moment from threads, each on a store connection of its own: what workers that took one task sent
twice (or a task and beat's sweep) do at once."""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.db import connection

Result = TypeVar("Result")


def at_once(work: Callable[[], Result], times: int) -> list[Result]:
    """What work() returned in each of `times` threads that called it together, in the threads' order."""
    start = threading.Barrier(times)

    def call(_number: int) -> Result:
        start.wait()
        try:
            return work()
        finally:
            connection.close()

    with ThreadPoolExecutor(times) as pool:
        return list(pool.map(call, range(times)))
