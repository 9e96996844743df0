"""The fence: once an attempt fenced a host, each of its commands runs only while the host still works for it."""

import posixpath

import pytest

from workers.transport import connect
from workers.transport_base import AttemptFenced, Fence


def fence(transport, token: str) -> Fence:
    return Fence(posixpath.join(transport.host.work_dir, "fences", "db"), token)


def test_a_fenced_attempt_runs_its_commands_while_the_host_works_for_it(any_transport):
    any_transport.take_fence(fence(any_transport, "7.41"))
    assert any_transport.run(["echo", "mine"]).stdout == b"mine\n"
    assert any_transport.get_bytes(fence(any_transport, "").path) == b"7.41\n"


def test_a_later_attempt_fences_the_earlier_one_off_and_it_touches_nothing(any_transport):
    work_dir = any_transport.host.work_dir
    any_transport.take_fence(fence(any_transport, "7.41"))
    with connect(any_transport.host) as later:
        later.take_fence(fence(later, "7.42"))
        later.start_background("pgbench", ["sleep", "30"])

        with pytest.raises(AttemptFenced, match="7.42"):
            any_transport.run(["touch", f"{work_dir}/written-by-the-old-attempt"])
        with pytest.raises(AttemptFenced):
            any_transport.put_bytes(b"old", f"{work_dir}/data.json")
        with pytest.raises(AttemptFenced):
            any_transport.stop_background("pgbench", grace_s=1)

        assert later.exists(f"{work_dir}/written-by-the-old-attempt") is False
        assert later.exists(f"{work_dir}/data.json") is False
        assert later.exists(f"{later.run_dir}/pgbench.pid") is True
        later.stop_background("pgbench", grace_s=1)


def test_an_earlier_attempt_cannot_take_the_fence_back(any_transport):
    any_transport.take_fence(fence(any_transport, "7.42"))
    with connect(any_transport.host) as late_starter, pytest.raises(AttemptFenced, match="later than 7.41"):
        late_starter.take_fence(fence(late_starter, "7.41"))
    assert any_transport.run(["true"]).ok


def test_the_fence_of_another_store_gives_way(any_transport):
    """A store made anew counts its attempts from 1 again: its tokens cannot be compared with the old ones."""
    any_transport.take_fence(fence(any_transport, "7.900"))
    with connect(any_transport.host) as new_store:
        new_store.take_fence(fence(new_store, "8.1"))
        assert new_store.run(["true"]).ok
