"""Independent calls to targets, side by side: each round trip over SSH costs tens of milliseconds."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


def concurrently(*calls: Callable[[], object]) -> list[object]:
    """Call each in its own thread; returns their results in order, or raises the first error.

    Commands run side by side on one SSH connection (each has its own channel); file calls take turns on the
    transport's one SFTP channel (SSHTransport's lock).
    """
    if not calls:
        return []
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(call) for call in calls]
        return [future.result() for future in futures]
