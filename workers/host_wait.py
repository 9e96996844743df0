"""Reaching a host that may be down for a while: connect, and while it does not answer, try again after growing
delays, until it answers or the patience runs out.

An SSH outage of a minute (a reboot, a network blip) must not fail a trial: without waiting, its attempts came
back to back and all failed within seconds. The attempt waits instead, and tells the store that it waits, and
since when, through `on_wait`, so the study page can say so. Past `limit_s` it gives up with HostGaveUp, whose
message names the host and how long it was waited for. The note is a fact about the host, kept true: every
connection that succeeds says the host answers (whichever attempt noted the wait, a lost one included), and so
does a wait that a cancel stopped. A connection lost under a step that can be taken again (answered_again: the
fetch of pgbench's results, the steps after the run) is waited for the same way, from the moment the loss is noticed.
"""

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TypeVar

from workers.spec import HostSpec
from workers.transport import ConnectionLost, HostUnreachable, Transport, TransportError, connect

logger = logging.getLogger(__name__)

# How often a wait asks should_stop (a cancel stops a wait within this).
STOP_POLL_S = 1.0


@dataclass(frozen=True)
class HostPatience:
    """Delays between tries, seconds, growing; the last one repeats until limit_s has passed since the first miss."""

    delays_s: tuple[float, ...] = (5.0, 10.0, 20.0, 40.0, 60.0)
    limit_s: float = 900.0

    def delay_s(self, misses: int) -> float:
        return self.delays_s[min(misses, len(self.delays_s)) - 1]


class HostGaveUp(TransportError):
    """The host did not answer within the patience."""


class WaitStopped(TransportError):
    """should_stop said so while the attempt waited for its host."""


Reached = TypeVar("Reached")


def unheard(host_name: str, since: datetime | None) -> None:
    """A wait nobody asked to hear about."""


# on_wait(host name, since): since is when the host was first found unreachable; None: it answers (or nobody waits
# for it any more).
WaitReport = Callable[[str, datetime | None], object]


def connect_waiting(
    host: HostSpec, patience: HostPatience, *, on_wait: WaitReport, should_stop: Callable[[], bool]
) -> Transport:
    """connect(host), trying again after patience's delays while it is unreachable."""
    return until_it_answers(partial(connect, host), host.name, patience, on_wait=on_wait, should_stop=should_stop)


def reconnect_waiting(
    transport: Transport, patience: HostPatience, *, on_wait: WaitReport, should_stop: Callable[[], bool]
) -> None:
    """transport.reconnect() after its connection was lost, trying again while the host does not answer. The loss
    is the first miss: the wait is noted at once, and the patience runs from it."""
    name = transport.host.name
    until_it_answers(transport.reconnect, name, patience, on_wait=on_wait, should_stop=should_stop, lost=True)


def answered_again(
    action: Callable[[], Reached],
    transport: Transport,
    patience: HostPatience,
    *,
    on_wait: WaitReport,
    should_stop: Callable[[], bool],
) -> tuple[Reached, str]:
    """action() on transport; when its host stops answering meanwhile (ConnectionLost), action() once more after the
    host answers again, within the patience. Returns what action returned, and the lost connection's message ('':
    it was not lost)."""
    try:
        return action(), ""
    except ConnectionLost as lost:
        logger.warning("%s stopped answering (%s); waiting for it", transport.host.name, lost)
        reconnect_waiting(transport, patience, on_wait=on_wait, should_stop=should_stop)
        return action(), str(lost)


def until_it_answers(
    reach: Callable[[], Reached],
    host_name: str,
    patience: HostPatience,
    *,
    on_wait: WaitReport,
    should_stop: Callable[[], bool],
    lost: bool = False,
) -> Reached:
    """reach(), tried again after patience's delays while it raises HostUnreachable; HostGaveUp past the limit.
    lost: the host was already found not answering (a lost connection), which starts the wait."""
    since: datetime | None = None
    first_miss = 0.0
    misses = 0
    if lost:
        since, first_miss = _first_miss(host_name, on_wait)
    while True:
        try:
            reached = reach()
        except HostUnreachable as error:
            misses += 1
            if since is None:
                since, first_miss = _first_miss(host_name, on_wait)
            waited = time.monotonic() - first_miss
            if waited >= patience.limit_s:
                raise HostGaveUp(
                    f"host {host_name} unreachable since {since:%Y-%m-%d %H:%M:%S} UTC: "
                    f"gave up after {waited:.0f} s (limit {patience.limit_s:g} s): {error}"
                ) from error
            try:
                _sleep(min(patience.delay_s(misses), patience.limit_s - waited), should_stop, host_name)
            except WaitStopped:
                on_wait(host_name, None)
                raise
            continue
        on_wait(host_name, None)
        return reached


def _first_miss(host_name: str, on_wait: WaitReport) -> tuple[datetime, float]:
    """The wait begins: noted, and its start kept (wall clock for the note, monotonic for the patience)."""
    since = datetime.now(UTC)
    on_wait(host_name, since)
    return since, time.monotonic()


def _sleep(seconds: float, should_stop: Callable[[], bool], host_name: str) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if should_stop():
            raise WaitStopped(f"stopped while waiting for host {host_name}")
        time.sleep(min(left, STOP_POLL_S))
