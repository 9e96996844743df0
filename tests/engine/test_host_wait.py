"""Waiting for a host that does not answer: growing delays, a report of since when, giving up past the limit."""

import time
from datetime import datetime

import pytest

from tests.fake_transport import FakeTransport, lost_once
from tests.sshd import free_port
from workers.host_wait import HostGaveUp, HostPatience, WaitStopped, answered_again, connect_waiting
from workers.spec import HostSpec
from workers.transport import ConnectionLost, HostUnreachable, connect


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


# A step whose connection was lost (answered_again), on a fake target (tests/fake_transport.py): the waits and the
# retry are the engine's logic; what a frozen host does to a real connection is tests/engine/test_frozen_target.py's.
QUICK = HostPatience(delays_s=(0.01,), limit_s=5)


def test_a_step_whose_connection_was_lost_is_taken_again_once_the_host_answers():
    reports: list[tuple[str, datetime | None]] = []
    transport = FakeTransport(unreachable_reconnects=2)

    taken = answered_again(
        lost_once(lambda: "fetched"),
        transport,
        QUICK,
        on_wait=lambda *wait: reports.append(wait),
        should_stop=lambda: False,
    )

    assert taken == ("fetched", "the connection stopped answering under the command")
    assert transport.reconnects == 3
    assert [(name, since is None) for name, since in reports] == [("fake", False), ("fake", True)]


def test_a_step_whose_connection_holds_runs_once_and_notes_no_wait():
    reports: list[tuple[str, datetime | None]] = []
    transport = FakeTransport()

    taken = answered_again(
        lambda: "fetched", transport, QUICK, on_wait=lambda *wait: reports.append(wait), should_stop=lambda: False
    )

    assert (taken, transport.reconnects, reports) == (("fetched", ""), 0, [])


def test_a_step_lost_twice_is_not_taken_a_third_time():
    transport = FakeTransport()

    def always_lost() -> None:
        raise ConnectionLost("lost again")

    with pytest.raises(ConnectionLost, match="lost again"):
        answered_again(always_lost, transport, QUICK, on_wait=lambda *wait: None, should_stop=lambda: False)
    assert transport.reconnects == 1


def test_a_host_that_stays_gone_after_a_loss_is_given_up_past_the_patience():
    transport = FakeTransport(unreachable_reconnects=10_000)
    patience = HostPatience(delays_s=(0.01, 0.02), limit_s=0.2)

    with pytest.raises(HostGaveUp, match=r"host fake unreachable since .* UTC: gave up after \d+ s \(limit 0.2 s\)"):
        answered_again(
            lost_once(lambda: "fetched"), transport, patience, on_wait=lambda *wait: None, should_stop=lambda: False
        )
    assert transport.reconnects > 2


def test_a_cancel_while_waiting_after_a_loss_stops_the_wait_and_clears_its_note():
    reports: list[tuple[str, datetime | None]] = []
    transport = FakeTransport(unreachable_reconnects=10_000)
    started = time.monotonic()

    with pytest.raises(WaitStopped, match="while waiting for host fake"):
        answered_again(
            lost_once(lambda: "fetched"),
            transport,
            HostPatience(delays_s=(30.0,), limit_s=60),
            on_wait=lambda *wait: reports.append(wait),
            should_stop=lambda: True,
        )
    assert time.monotonic() - started < 2
    assert [(name, since is None) for name, since in reports] == [("fake", False), ("fake", True)]
