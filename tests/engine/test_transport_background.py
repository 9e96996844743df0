"""Background commands in their own process group, over SSH and locally."""

import shlex
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fake_transport import WAIT_STILL_RUNS, Answer, FakeTransport, script_of
from tests.sshd import process_is_gone
from workers import background_scripts as scripts
from workers.transport import CommandFailed, CommandTimeout, connect
from workers.transport_base import CommandStopped

FAMILY = 'sleep 60 & echo $! > "$1/child.pid"; echo $$ > "$1/parent.pid"; wait'


def family_pids(transport) -> list[int]:
    work_dir = transport.host.work_dir
    return [int(transport.get_bytes(f"{work_dir}/{name}.pid")) for name in ("parent", "child")]


def start_family(transport, name: str) -> list[int]:
    """Start the family as the background command name; its parent's and child's pids. The session's SSH target
    keeps the pid files of the family of an earlier test, whose processes are gone: they go first, or a family slow to
    write its own (a loaded machine) was taken for that one (a fresh clone's failure)."""
    work_dir = transport.host.work_dir
    transport.run(["rm", "-f", "--", f"{work_dir}/parent.pid", f"{work_dir}/child.pid"])
    transport.start_background(name, ["sh", "-c", FAMILY, "sh", work_dir])
    deadline = time.monotonic() + 5
    while not transport.exists(f"{work_dir}/parent.pid") and time.monotonic() < deadline:
        time.sleep(0.05)
    return family_pids(transport)


def test_it_waits_for_a_background_command_and_returns_its_output(any_transport):
    any_transport.start_background("talker", ["sh", "-c", "echo out; echo err >&2; exit 7"])
    result = any_transport.wait_background("talker", timeout=10)
    assert (result.exit_status, result.stdout, result.stderr) == (7, b"out\n", b"err\n")
    assert result.argv == ["sh", "-c", "echo out; echo err >&2; exit 7"]


def test_the_outputs_come_back_byte_for_byte_however_they_end(any_transport):
    script = r"printf '\000\377\n7 9\n'; head -c 200000 /dev/zero | tr '\000' x; printf 'no newline' >&2; exit 3"
    any_transport.start_background("bytes", ["sh", "-c", script])
    result = any_transport.wait_background("bytes", timeout=30)
    assert (result.exit_status, result.stderr) == (3, b"no newline")
    assert result.stdout == b"\x00\xff\n7 9\n" + b"x" * 200_000


def test_it_keeps_the_pid_file_of_a_running_command(any_transport):
    any_transport.start_background("sleeper", ["sleep", "30"])
    pgid, started = map(int, any_transport.get_bytes(f"{any_transport.run_dir}/sleeper.pid").split())
    assert pgid > 1
    assert started == int(Path(f"/proc/{pgid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    any_transport.stop_background("sleeper", grace_s=2)
    assert any_transport.exists(f"{any_transport.run_dir}/sleeper.pid") is False


def test_it_stops_the_whole_process_group_children_too(any_transport):
    pids = start_family(any_transport, "family")
    assert not any(process_is_gone(pid) for pid in pids)
    any_transport.stop_background("family", grace_s=2)
    assert all(process_is_gone(pid) for pid in pids)
    result = any_transport.wait_background("family", timeout=5)
    assert result.exit_status != 0


def test_it_times_out_waiting_for_a_command_that_still_runs(any_transport):
    any_transport.start_background("long", ["sleep", "30"])
    with pytest.raises(CommandTimeout):
        any_transport.wait_background("long", timeout=0.5)
    any_transport.stop_background("long", grace_s=2)


def test_kill_leftovers_finds_what_a_crashed_trial_left(any_transport):
    pids = start_family(any_transport, "pgbench")
    any_transport.close()  # the "crash": the next attempt comes with a new transport
    with connect(any_transport.host) as next_attempt:
        assert next_attempt.kill_leftovers() == ["pgbench"]
        assert all(process_is_gone(pid) for pid in pids)
        assert next_attempt.kill_leftovers() == []


def test_a_stale_pid_file_whose_number_another_group_now_holds_stops_nothing(any_transport):
    """A worker that died leaves its pid file; once the number is another group's of the same user (an sshd session,
    a cluster), the next attempt must not signal that group, and drops the file."""
    run_dir = any_transport.run_dir
    bystanders = start_family(any_transport, "bystander")
    bystander = any_transport.get_bytes(f"{run_dir}/bystander.pid")
    group, started = bystander.split()
    any_transport.run(["rm", f"{run_dir}/bystander.pid"])  # the bystander is nobody's leftover
    any_transport.put_bytes(b"%s %d\n" % (group, int(started) - 1), f"{run_dir}/pgbench.pid")
    try:
        with connect(any_transport.host) as next_attempt:
            assert next_attempt.kill_leftovers() == []
        assert not any(process_is_gone(pid) for pid in bystanders)
        assert not any_transport.exists(f"{run_dir}/pgbench.pid")
    finally:
        any_transport.put_bytes(bystander, f"{run_dir}/bystander.pid")
        any_transport.stop_background("bystander", grace_s=2)
    assert all(process_is_gone(pid) for pid in bystanders)


def test_a_long_command_gives_its_output_and_status_like_run(any_transport):
    any_transport.should_stop = lambda: False
    result = any_transport.run_long(
        ["sh", "-c", "echo out; echo err >&2; exit 3"], name="long", timeout=30, check=False
    )
    assert (result.exit_status, result.stdout, result.stderr) == (3, b"out\n", b"err\n")
    with pytest.raises(CommandFailed):
        any_transport.run_long(["false"], name="long", timeout=30)


def test_a_long_command_stops_with_its_children_within_seconds_of_should_stop(any_transport):
    work_dir = any_transport.host.work_dir
    asked: list[float] = []

    def should_stop() -> bool:
        if any_transport.exists(f"{work_dir}/child.pid") and not asked:
            asked.append(time.monotonic())
        return bool(asked)

    any_transport.should_stop = should_stop
    with pytest.raises(CommandStopped):
        any_transport.run_long(["sh", "-c", FAMILY, "sh", work_dir], name="load", timeout=300)
    stopped_after = time.monotonic() - asked[0]

    assert stopped_after < 5
    assert all(process_is_gone(pid) for pid in family_pids(any_transport))
    assert any_transport.exists(f"{any_transport.run_dir}/load.pid") is False


# A long command's polling (run_long), on a fake target (tests/fake_transport.py): the scripts it runs are the tests'
# above, on real targets; which ones it runs, and when it gives up, is the engine's logic.
def answering_waits(still_runs: int) -> Callable[[list[str]], Answer]:
    """A target whose background command still runs at the first `still_runs` waits, then ends with exit 0."""
    waits: list[None] = []

    def answer(argv: list[str]) -> Answer:
        if script_of(argv) == scripts.WAIT:
            waits.append(None)
            return WAIT_STILL_RUNS if len(waits) <= still_runs else Answer(stdout=b"0 6\nloadedwarn\n")
        return Answer()

    return answer


def scripts_asked(transport: FakeTransport) -> list[str]:
    names = {scripts.LAUNCH: "launch", scripts.WAIT: "wait", scripts.STOP: "stop"}
    return [names.get(script_of(argv), shlex.join(argv)) for argv in transport.asked]


def test_a_long_command_without_anyone_to_ask_is_a_plain_run():
    transport = FakeTransport(lambda argv: Answer(stdout=b"plain\n"))

    assert transport.run_long(["echo", "plain"], name="plain", timeout=30).stdout == b"plain\n"
    assert transport.asked == [["echo", "plain"]]


def test_a_long_command_is_polled_until_it_ends_and_gives_its_outcome():
    transport = FakeTransport(answering_waits(still_runs=2))
    transport.should_stop = lambda: False

    result = transport.run_long(["pgbench", "-i"], name="load", timeout=300)

    assert (result.argv, result.exit_status, result.stdout, result.stderr) == (
        ["pgbench", "-i"],
        0,
        b"loaded",
        b"warn\n",
    )
    assert scripts_asked(transport) == ["launch", "wait", "wait", "wait"]


def test_a_long_command_is_stopped_with_term_at_the_first_poll_after_should_stop():
    transport = FakeTransport(answering_waits(still_runs=10_000))
    polls: list[None] = []
    transport.should_stop = lambda: bool(polls.append(None)) or len(polls) > 2

    with pytest.raises(CommandStopped, match="pgbench -i was stopped"):
        transport.run_long(["pgbench", "-i"], name="load", timeout=300)
    assert scripts_asked(transport) == ["launch", "wait", "wait", "stop"]
    assert transport.asked[-1][4:7] == [transport.run_dir, "load", "TERM"]


def test_a_long_command_past_its_timeout_is_stopped_and_times_out():
    transport = FakeTransport(answering_waits(still_runs=10_000))
    transport.should_stop = lambda: False

    with pytest.raises(CommandTimeout, match="ran past its timeout of 0s"):
        transport.run_long(["vacuumdb"], name="vacuum", timeout=0)
    assert scripts_asked(transport) == ["launch", "wait", "stop"]
