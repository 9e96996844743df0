"""The host-wide lock: installations that share a target take turns on it, one trial at a time.

Two installations (a staging and a production dashboard, two checkouts) that run on one target share its account
and work dir, and their stores know nothing of each other: the store's one-trial-per-host rule cannot keep them
apart. So an attempt holds a lock on the target while it runs: flock on host.lock in the work dir they share, taken
by a command that lives as long as the attempt holds it (Transport.hold) and ends with the worker's connection, so a
worker that dies, however it dies, leaves no lock behind. The holder writes its installation's id and its pid in
the file.

An attempt that finds the lock held by another installation does nothing on the host: it ends with host_busy_with
set to the holder's id, and the store puts the trial back to wait, as for a host that runs another study's trial.
A holder of the same installation is an earlier attempt of this store: the fence (transport_base.Fence), not the
lock, decides between them, so the attempt goes on. A host without flock is not locked (the worker's log says so).
A connection lost under a trial (a network fault) takes the holder with it: the lock is taken again as the connection
is made again (Transport.on_reconnect), waiting a little for the old holder's end; held by another installation by
then, the attempt fails with HostLockBusy (its run was not alone on the host).
"""

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from workers import background_scripts as scripts
from workers.spec import HostSpec
from workers.transport import Transport, TransportError, connect
from workers.transport_base import Held
from workers.work_dir import ensure_private_work_dir

logger = logging.getLogger(__name__)
# The longest a holder lives: one whose worker vanished without its connection closing (a cut network) goes then.
HOLD_LIMIT_S = 6 * 3600
ANSWER_WITHIN_S = 60
# How long an attempt that reconnected waits for its old holder's end, or another installation's.
TAKE_AGAIN_WAIT_S = 10
# An installation id as the store makes it (a UUID), and what the host's note may hold (Host.busy_with).
HOLDER_RE = re.compile(r"[0-9a-f-]{1,64}", re.ASCII)


class HostLockBusy(TransportError):
    """Another installation's attempt holds the host-wide lock. The holder's id is what the lock file says, which the
    target's account could have written anything into: kept only when it reads as an id."""

    def __init__(self, host_name: str, holder: str) -> None:
        self.holder = holder if HOLDER_RE.fullmatch(holder) else "unknown"
        super().__init__(f"host {host_name} is busy with another benchdash installation ({self.holder})")


@contextmanager
def host_lock(transport: Transport, wait_s: int = 0) -> Iterator[None]:
    """Hold the host's lock while the block runs, taken again whenever the connection is made again; HostLockBusy
    when another installation holds it (still, after wait_s seconds). A host without an installation (a run by hand)
    is not locked."""
    if not transport.host.lock_path:
        yield
        return
    lock = HeldLock(transport)
    try:
        lock.take(wait_s)
        transport.on_reconnect.append(lock.take_again)
        yield
    finally:
        if lock.take_again in transport.on_reconnect:
            transport.on_reconnect.remove(lock.take_again)
        lock.release()


@contextmanager
def host_lock_on(host: HostSpec, wait_s: int = 0) -> Iterator[Transport]:
    """A connection of its own to the host, holding the host's lock while the block runs: for every look at the host
    outside an attempt, which must neither measure nor disturb another installation's run (its facts, read at
    registration, on an admin's save or before a study, whose script runs pgbench --version; the noise check);
    HostLockBusy as host_lock."""
    with connect(host) as transport:
        ensure_private_work_dir(transport)  # the lock lives beside the installation's part of it: checked first
        with host_lock(transport, wait_s):
            yield transport


class HeldLock:
    """The lock of one attempt on one host: the command that holds it, while it does."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.held: Held | None = None

    def take(self, wait_s: int = 0) -> None:
        """Take the lock, waiting up to wait_s for a holder to let go; HostLockBusy when another installation
        holds it then."""
        self.release()
        host = self.transport.host
        argv = ["sh", "-c", scripts.HOST_LOCK, "sh", host.lock_path, host.installation, str(wait_s)]
        self.held = self.transport.hold(argv, timeout=HOLD_LIMIT_S)
        try:
            self.check(self.held.first_line(ANSWER_WITHIN_S + wait_s))
        except BaseException:
            self.release()
            raise

    def take_again(self) -> None:
        """After the connection was lost, and the holder with it: its end may still be under way on the host."""
        self.take(TAKE_AGAIN_WAIT_S)

    def check(self, answer: str) -> None:
        host = self.transport.host
        state, _, holder = answer.partition(" ")
        if state == "busy" and holder != host.installation:
            raise HostLockBusy(host.name, holder)
        if state == "unlocked":
            logger.warning("host %s has no flock: other installations that use it are not kept apart", host.name)
        elif state not in ("held", "busy"):
            raise TransportError(f"cannot take the host-wide lock {host.lock_path} on {host.name}: {answer!r}")

    def release(self) -> None:
        if self.held is not None:
            self.held.release()
            self.held = None
