"""The fence: once an attempt fenced a host, each of its commands runs only while the host still works for it."""

import posixpath

import pytest

from tests.fake_transport import FENCE_REFUSAL, Answer, FakeTransport
from workers import background_scripts as scripts
from workers.transport import connect
from workers.transport_base import AttemptFenced, CommandFailed, Fence


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


# The attempt's side of the fence, on a fake target (tests/fake_transport.py): what it does with the guard's answer.
# Whether a token is later than another is the fence's shell (above, on real targets).
FAKE_FENCE = Fence("/srv/bench/fences/db", "7.41")


def test_a_taken_fence_guards_every_later_command_and_the_take_itself_runs_unguarded():
    transport = FakeTransport()
    transport.take_fence(FAKE_FENCE)
    transport.run(["echo", "mine"])

    take, command = transport.command_lines
    assert take[:3] == ["timeout", "-k", "5"] and take[4:7] == ["sh", "-c", scripts.FENCE_TAKE]
    assert command[:6] == ["sh", "-c", scripts.FENCE_GUARD, "sh", FAKE_FENCE.path, "7.41"]
    assert command[-2:] == ["echo", "mine"]


def test_a_refused_take_leaves_the_attempt_unfenced_and_says_who_holds_the_host():
    transport = FakeTransport(lambda argv: FENCE_REFUSAL)

    with pytest.raises(AttemptFenced, match="later than 7.41"):
        transport.take_fence(FAKE_FENCE)
    assert transport.fence is None


def test_a_take_that_fails_otherwise_is_a_failed_command_not_a_fence():
    transport = FakeTransport(lambda argv: Answer(1, stderr=b"mkdir: Permission denied"))

    with pytest.raises(CommandFailed, match="Permission denied"):
        transport.take_fence(FAKE_FENCE)
    assert transport.fence is None


def test_a_command_the_guard_refuses_is_fenced_even_when_its_caller_checks_nothing():
    refusing = False
    transport = FakeTransport(lambda argv: FENCE_REFUSAL if refusing else Answer())
    transport.take_fence(FAKE_FENCE)
    refusing = True

    with pytest.raises(AttemptFenced, match="7.42"):
        transport.run(["touch", "/srv/bench/data.json"], check=False)


def test_a_command_that_exits_with_the_fence_s_status_on_its_own_is_not_taken_for_the_fence():
    """The guard's mark on stderr tells its refusal from a command that happens to exit 86."""
    refusing = False
    transport = FakeTransport(lambda argv: Answer(scripts.FENCED, stderr=b"exit 86") if refusing else Answer())
    transport.take_fence(FAKE_FENCE)
    refusing = True

    assert transport.run(["sh", "-c", "exit 86"], check=False).exit_status == scripts.FENCED
    with pytest.raises(CommandFailed):
        transport.run(["sh", "-c", "exit 86"])
