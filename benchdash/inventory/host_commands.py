"""A command that runs something heavy on a host (a throwaway cluster, a compile) holds the host-wide lock meanwhile
(workers/host_lock.py), as a trial does: never beside another installation's trial, whose run it would load."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError

from benchdash.inventory import host_facts
from workers.host_lock import HostLockBusy, host_lock_on
from workers.spec import HostSpec
from workers.transport import Transport


@contextmanager
def host_held(spec: HostSpec) -> Iterator[Transport]:
    """The host's transport under its lock, waiting COMMAND_LOCK_WAIT_S for another installation's trial to let go;
    a CommandError saying so when it still holds the host, nothing run there."""
    try:
        with host_lock_on(spec, host_facts.COMMAND_LOCK_WAIT_S) as transport:
            yield transport
    except HostLockBusy as busy:
        raise CommandError(f"{busy}: nothing was run there; run this again once it is free") from busy
