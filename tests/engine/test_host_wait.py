"""Waiting for a host that does not answer: growing delays, a report of since when, giving up past the limit."""

import time
from datetime import datetime

import pytest

from tests.sshd import free_port
from workers.host_wait import HostGaveUp, HostPatience, WaitStopped, connect_waiting
from workers.spec import HostSpec
from workers.transport import HostUnreachable, connect


def closed_port_host() -> HostSpec:
    """A host whose port nobody listens on: the connection is refused at once, as with sshd stopped."""
    return HostSpec(name="gone", address="127.0.0.1", port=free_port(), username="nobody", work_dir="/tmp/x")


def test_the_delays_grow_and_the_last_one_repeats():
    patience = HostPatience(delays_s=(1.0, 2.0, 4.0), limit_s=60)
    assert [patience.delay_s(misses) for misses in range(1, 6)] == [1.0, 2.0, 4.0, 4.0, 4.0]


def test_a_refused_connection_is_an_unreachable_host():
    with pytest.raises(HostUnreachable, match="cannot connect to nobody@127.0.0.1"):
        connect(closed_port_host())


def test_it_gives_up_past_the_limit_naming_the_host_and_since_when():
    reports: list[tuple[str, datetime | None]] = []
    patience = HostPatience(delays_s=(0.1, 0.2), limit_s=0.5)
    started = time.monotonic()
    with pytest.raises(HostGaveUp, match=r"host gone unreachable since .* UTC: gave up after \d+ s \(limit 0.5 s\)"):
        connect_waiting(
            closed_port_host(), patience, on_wait=lambda *wait: reports.append(wait), should_stop=lambda: False
        )
    assert 0.5 <= time.monotonic() - started < 3
    assert [name for name, _ in reports] == ["gone"] and reports[0][1] is not None


def test_a_cancel_stops_the_wait():
    patience = HostPatience(delays_s=(30.0,), limit_s=60)
    started = time.monotonic()
    with pytest.raises(WaitStopped, match="while waiting for host gone"):
        connect_waiting(closed_port_host(), patience, on_wait=lambda *wait: None, should_stop=lambda: True)
    assert time.monotonic() - started < 2


def test_a_cancel_during_the_wait_clears_its_note():
    reports: list[tuple[str, datetime | None]] = []
    patience = HostPatience(delays_s=(30.0,), limit_s=60)
    with pytest.raises(WaitStopped):
        connect_waiting(
            closed_port_host(), patience, on_wait=lambda *wait: reports.append(wait), should_stop=lambda: True
        )
    assert [(name, since is None) for name, since in reports] == [("gone", False), ("gone", True)]


def test_any_connection_that_succeeds_says_the_host_answers(ssh_target):
    """Whichever attempt noted the wait (a lost one too), the next connection to the host clears it."""
    reports: list[tuple[str, datetime | None]] = []
    transport = connect_waiting(
        ssh_target, HostPatience(), on_wait=lambda *wait: reports.append(wait), should_stop=lambda: False
    )
    transport.close()
    assert reports == [(ssh_target.name, None)]
