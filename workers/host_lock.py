"""The host-wide lock: installations that share a target take turns on it, one trial at a time.

Two installations (a staging and a production dashboard, two checkouts) that run on one target share its account
and work dir, and their stores know nothing of each other: the store's one-trial-per-host rule cannot keep them
apart. So an attempt holds a lock on the target while it runs: flock on host.lock in the work dir they share, taken
by a command that lives as long as the attempt holds it (Transport.hold) and ends with the worker's connection, so a
worker that dies, however it dies, leaves no lock behind. The holder writes its installation's id in the file.

An attempt that finds the lock held by another installation does nothing on the host: it ends with host_busy_with
set to the holder's id, and the store puts the trial back to wait, as for a host that runs another study's trial.
A holder of the same installation is an earlier attempt of this store: the fence (transport_base.Fence), not the
lock, decides between them, so the attempt goes on. A host without flock is not locked (the worker's log says so).
A connection lost under a trial (a network fault) takes the holder with it: until the attempt ends, the runner, which
reconnects, goes on without the lock.
"""

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from workers import background_scripts as scripts
from workers.transport import Transport, TransportError

logger = logging.getLogger(__name__)
# The longest a holder lives: one whose worker vanished without its connection closing (a cut network) goes then.
HOLD_LIMIT_S = 6 * 3600
ANSWER_WITHIN_S = 60
# An installation id as the store makes it (a UUID), and what the host's note may hold (Host.busy_with).
HOLDER_RE = re.compile(r"[0-9a-f-]{1,64}", re.ASCII)


class HostLockBusy(TransportError):
    """Another installation's attempt holds the host-wide lock. The holder's id is what the lock file says, which the
    target's account could have written anything into: kept only when it reads as an id."""

    def __init__(self, host_name: str, holder: str) -> None:
        self.holder = holder if HOLDER_RE.fullmatch(holder) else "unknown"
        super().__init__(f"host {host_name} is busy with another benchdash installation ({self.holder})")


@contextmanager
def host_lock(transport: Transport) -> Iterator[None]:
    """Hold the host's lock while the block runs; HostLockBusy when another installation holds it. A host without
    an installation (a run by hand) is not locked."""
    host = transport.host
    if not host.lock_path:
        yield
        return
    argv = ["sh", "-c", scripts.HOST_LOCK, "sh", host.lock_path, host.installation]
    held = transport.hold(argv, timeout=HOLD_LIMIT_S)
    try:
        answer = held.first_line(ANSWER_WITHIN_S)
        state, _, holder = answer.partition(" ")
        if state == "busy" and holder != host.installation:
            raise HostLockBusy(host.name, holder)
        if state == "unlocked":
            logger.warning("host %s has no flock: other installations that use it are not kept apart", host.name)
        elif state not in ("held", "busy"):
            raise TransportError(f"cannot take the host-wide lock {host.lock_path} on {host.name}: {answer!r}")
        yield
    finally:
        held.release()
