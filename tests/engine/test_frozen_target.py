"""A pgbench host that freezes (its sshd stopped with SIGSTOP) while the run goes on there: the attempt waits for it
as for a host that does not answer and fetches the finished run once it answers; one that stays frozen past the
patience fails the attempt with a clean-up bounded to seconds, and the next attempt stops what was left."""

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.engine.test_runner import trial
from tests.queue.support import background_pid, process_alive, wait_for
from tests.sshd import SshServer, sshd_server
from workers.host_wait import HostPatience, WaitReport, unheard
from workers.pgbench_run import PgbenchRun
from workers.runner import run_trial
from workers.spec import TrialOutcome, TrialSpec
from workers.transport import CommandResult, ConnectionLost, SSHTransport, Transport, TransportError, connect

pytestmark = pytest.mark.slow

PATIENCE = HostPatience(delays_s=(1.0, 2.0), limit_s=30)
# Past the patience: the wait still tries the host again once (a try gives up only after NOTICED_WITHIN_S), then
# gives up; every second of patience beyond that is a second the test waits.
SHORT_PATIENCE = HostPatience(delays_s=(1.0, 2.0), limit_s=5)
NOTICED_WITHIN_S = 8
PRODUCTION_NOTICE_S = {
    "CHANNEL_TIMEOUT_S": SSHTransport.CHANNEL_TIMEOUT_S,
    "BANNER_TIMEOUT_S": SSHTransport.BANNER_TIMEOUT_S,
    "SILENCE_PROBE_S": SSHTransport.SILENCE_PROBE_S,
}
# How long a host freezes once its run finished: noticed after NOTICED_WITHIN_S, answering well within PATIENCE.
THAW_AFTER_S = 20


def notice_within(monkeypatch: pytest.MonkeyPatch, seconds: dict[str, int]) -> None:
    for name, limit in seconds.items():
        monkeypatch.setattr(SSHTransport, name, limit)


@pytest.fixture
def quick_to_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frozen host is noticed in seconds (30 s and 15 s in production), yet a busy machine's sshd still answers."""
    notice_within(monkeypatch, dict.fromkeys(PRODUCTION_NOTICE_S, NOTICED_WITHIN_S))


def sshd_processes(server: SshServer) -> list[int]:
    """The server's sshd: its listener and every session process under it."""
    assert server.process is not None
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [server.process.pid]
    while todo:
        pid = todo.pop()
        if _command_name(pid).startswith("sshd"):
            found.append(pid)
            todo.extend(children.get(pid, []))
    return found


def _command_name(pid: int) -> str:
    """The process's name; empty for one that ended since /proc was listed (a session closing meanwhile)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


@contextmanager
def frozen(server: SshServer) -> Iterator[None]:
    pids = sshd_processes(server)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def freeze_for(server: SshServer, seconds: float) -> threading.Timer:
    """Freeze the server now, and thaw it after seconds (the timer returned)."""
    pids = sshd_processes(server)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    thaw = threading.Timer(seconds, lambda: [os.kill(pid, signal.SIGCONT) for pid in pids])
    thaw.start()
    return thaw


def run_in_background(
    spec: TrialSpec, server: SshServer, patience: HostPatience = PATIENCE, on_wait: WaitReport = unheard
) -> tuple[threading.Thread, dict[str, TrialOutcome]]:
    result: dict[str, TrialOutcome] = {}

    def run() -> None:
        with connect(server.spec) as transport:
            result["outcome"] = run_trial(spec, transport, patience=patience, on_wait=on_wait)

    runner = threading.Thread(target=run)
    runner.start()
    return runner, result


def pgbench_started(server: SshServer, runner: threading.Thread, result: dict[str, TrialOutcome]) -> int:
    """pgbench's pid once it runs on the target; the trial's error if it ended before."""
    wait_for(lambda: background_pid(server.spec.work_dir, "pgbench") or not runner.is_alive(), 180, "pgbench to run")
    assert runner.is_alive(), f"the trial ended before pgbench ran: {result['outcome'].error}"
    pid = background_pid(server.spec.work_dir, "pgbench")
    assert pid is not None, "pgbench ended at once"
    return pid


def test_a_run_that_finished_while_its_host_was_frozen_is_fetched_once_it_answers(installed_build, quick_to_notice):
    with sshd_server("frozen") as server:
        spec = trial(server.spec, installed_build, duration_s=4, collect_sar=False, collect_wait_events=False)
        runner, result = run_in_background(spec, server)
        pgbench = pgbench_started(server, runner, result)
        time.sleep(1)  # between two probes: the runner is not in a command

        with frozen(server):
            wait_for(lambda: not process_alive(pgbench), 30, "pgbench to end on the frozen host")
            time.sleep(NOTICED_WITHIN_S + 5)  # the runner's next probe finds no answer and waits for the host
        runner.join(timeout=120)

    outcome = result["outcome"]
    assert outcome.ok and outcome.tps is not None and outcome.tps > 0, outcome.error
    assert any("stopped answering during the run" in note for note in outcome.notes), outcome.notes


def test_a_host_frozen_once_its_run_finished_keeps_the_run_and_shows_the_wait_as_soon_as_it_is_noticed(
    installed_build, quick_to_notice, monkeypatch
):
    froze: list[threading.Timer] = []
    frozen_at, waits = [0.0], []
    recorded = PgbenchRun.record

    def record_then_freeze(run: PgbenchRun, result: CommandResult, pgbench: str) -> None:
        """pgbench ended and its output is in hand: the host freezes before the steps after the run."""
        recorded(run, result, pgbench)
        frozen_at[0] = time.monotonic()
        froze.append(freeze_for(server, THAW_AFTER_S))

    monkeypatch.setattr(PgbenchRun, "record", record_then_freeze)
    with sshd_server("frozen") as server:
        spec = trial(server.spec, installed_build, duration_s=2, collect_sar=False, collect_wait_events=False)
        on_wait = lambda name, since: waits.append((time.monotonic() - frozen_at[0], name, since))  # noqa: E731
        runner, result = run_in_background(spec, server, on_wait=on_wait)
        runner.join(timeout=180)
        froze[0].join()

    outcome = result["outcome"]
    assert outcome.ok and outcome.tps is not None and outcome.tps > 0, outcome.error
    assert any("stopped answering after the run" in note for note in outcome.notes), outcome.notes
    (noticed_after_s, name, since), *_, (_, _, answers) = waits
    assert name == "frozen" and since is not None and answers is None
    assert noticed_after_s < NOTICED_WITHIN_S + 3, "the wait is noted as the freeze is noticed, not a try later"


def test_a_command_under_way_on_a_host_that_freezes_is_a_lost_connection_within_seconds(monkeypatch):
    """A command that prints nothing for a while is normal (a data load); a host that then opens no probe channel
    is frozen: noticed in seconds (45 at most in production), not at the command's time limit."""
    notice_within(monkeypatch, {"SILENCE_PROBE_S": 2, "CHANNEL_TIMEOUT_S": 3})
    raised: list[BaseException] = []
    with sshd_server("frozen") as server, connect(server.spec) as transport:
        command = threading.Thread(target=lambda: raised.extend(_run_catching(transport, ["sleep", "60"])))
        command.start()
        time.sleep(1)
        with frozen(server):
            started = time.monotonic()
            command.join(timeout=20)
            noticed_after_s = time.monotonic() - started
    assert [type(error) for error in raised] == [ConnectionLost] and noticed_after_s < 10


def _run_catching(transport: Transport, argv: list[str]) -> list[BaseException]:
    try:
        transport.run(argv, timeout=120)
    except TransportError as error:
        return [error]
    return []


def test_a_host_frozen_past_the_patience_fails_fast_and_the_next_attempt_stops_what_was_left(
    installed_build, quick_to_notice, monkeypatch
):
    with sshd_server("frozen") as server:
        spec = trial(server.spec, installed_build, duration_s=4, collect_sar=False, collect_wait_events=False)
        runner, result = run_in_background(spec, server, SHORT_PATIENCE)
        pgbench_started(server, runner, result)
        time.sleep(1)
        with frozen(server):
            started = time.monotonic()
            runner.join(timeout=SHORT_PATIENCE.limit_s + 60)
            gave_up_after = time.monotonic() - started
        outcome = result["outcome"]

        # The next attempt needs no quick noticing: on a busy machine the thawed sshd, still working through what
        # queued up while it was stopped, once took past the 8 s to answer an exec request (CI).
        notice_within(monkeypatch, PRODUCTION_NOTICE_S)
        again = run_trial(spec, connect(server.spec), patience=SHORT_PATIENCE)

    assert not outcome.ok and "gave up after" in outcome.error and outcome.host_unreachable
    # After the patience, one short probe per host and no clean-up command at all (each would wait for the frozen
    # host in turn); the time also holds a command that was under way when the host froze.
    assert any("does not answer; the next attempt stops what this one left" in note for note in outcome.notes)
    assert not any(note.startswith("cleanup: could not") for note in outcome.notes), outcome.notes
    assert gave_up_after < SHORT_PATIENCE.limit_s + 90
    assert again.ok, again.error


def test_a_file_operation_on_a_frozen_host_is_a_lost_connection_that_says_so(monkeypatch):
    """An SFTP read that times out (a bare socket timeout, no message) is a lost connection, which the attempt waits
    out, and its message names the timeout."""
    monkeypatch.setattr(SSHTransport, "SFTP_IDLE_TIMEOUT_S", 1)
    with sshd_server("frozen") as server, connect(server.spec) as transport:
        assert transport.exists(server.spec.work_dir)
        with frozen(server), pytest.raises(ConnectionLost) as raised:
            transport.exists(server.spec.work_dir)
    assert str(raised.value) == f"cannot stat {server.spec.work_dir} on 127.0.0.1: TimeoutError"
