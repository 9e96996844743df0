"""A cancel stops every step of a trial within 5 s, the data load and a reset included, and leaves the host clean:
no process of the trial left, no server running, and no half-made data taken as good by the next trial.

The cancel comes as a member's would, from another thread, the moment the step's own command shows up on the
target (the worker's own machine, whose files and processes the test reads). The test pauses the step's command
(SIGSTOP) as it cancels, and lets it go on only once the runner has signalled it to stop, or after RESUME_AFTER_S
(10 s): so however short the step is (scale 1), a cancel that waited for the command to end would take longer than
CANCEL_WITHIN_S, and on a busy machine a copy or a VACUUM cannot end before the cancel or within one of the runner's
cancel polls.
"""

import contextlib
import os
import posixpath
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.engine.test_runner import trial
from workers.cluster import MARKER_FILE
from workers.runner import run_trial
from workers.spec import TrialSpec
from workers.transport import Transport
from workers.trial_cluster import cluster_dir

pytestmark = pytest.mark.slow

CANCEL_WITHIN_S = 5
SCALE = 1


def processes_under(work_dir: str) -> list[tuple[int, list[str]]]:
    """The live processes whose command line names the work dir (servers, data loads, copies...), with their pids."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(work_dir in arg for arg in argv):
            found.append((int(entry.name), [arg for arg in argv if arg]))
    return found


def read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


WRAPPER_OWN_COMMANDS = {"sh", "mv"}


def started_command(wrapper: int) -> int | None:
    """The command the runner's wrapper (a shell) started, once it runs: its child, after the exec. Before it, the
    child is still a copy of the wrapper, or the `mv` that put the pid file in place: a signal then would reach the
    wrapper, whose trap swallows it, and the command would start after the runner's stop, which then waits out its
    whole grace (seen on a loaded CI)."""
    children = children_of(wrapper)
    command = children[0] if children else None
    try:
        return (
            command
            if command and Path(f"/proc/{command}/comm").read_text().strip() not in WRAPPER_OWN_COMMANDS
            else None
        )
    except OSError:
        return None


def children_of(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


SIGSTOP_BIT = 1 << (signal.SIGSTOP - 1)


def proc_status(pid: int) -> dict[str, str] | None:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def process_line(pid: int) -> str:
    """pid, command line and /proc/<pid>/stat's state, parent, group and session, for a failure's message."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        state, parent, group, session = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:4]
    except OSError as error:
        return f"{pid}: {error}"
    return f"{pid} {cmdline!r} state {state} parent {parent} group {group} session {session}"


# /proc/<pid>/status's state letter of a stopped or ended process; "" when it is gone.
STOPPED_OR_GONE = ("T", "Z", "X", "")


def paused(pid: int) -> bool:
    """Stopped or gone, or asleep (D) under a child that is stopped: a vfork's parent. SIGSTOP can catch the group
    between a vfork and the child's exec (initdb starting postgres: a full run on 27 Nov), and the parent then sleeps
    uninterruptibly, never stopped, until its child goes on; it cannot go on before it either."""
    state = state_of(pid)
    return state in STOPPED_OR_GONE or (state == "D" and any(state_of(child) == "T" for child in children_of(pid)))


def state_of(pid: int) -> str:
    return (proc_status(pid) or {}).get("State", "")[:1]


def signal_pending(pid: int) -> bool:
    """Whether a signal other than our own SIGSTOP waits to be delivered to the (stopped) process, or the process
    is gone. A SIGSTOP still pending is not the runner's signal."""
    status = proc_status(pid)
    if status is None:
        return True
    pending = int(status["SigPnd"], 16) | int(status["ShdPnd"], 16)
    return bool(pending & ~SIGSTOP_BIT)


class Canceller:
    """Cancels, like a member on the page, as soon as the runner's background command `name` (initdb,
    pgbench-init, snapshot-data, restore-data, vacuum, pgbench) runs on the work dir.

    Its wrapper writes <work_dir>/run/<name>.pid before it starts the command; the canceller pauses the command's
    whole group (SIGSTOP) the moment the command is there, cancels, and resumes the group once the runner signalled
    it (or after RESUME_AFTER_S). So the step cannot end before the runner sees the cancel, however short it is on
    this machine, and the runner's signal takes effect the moment the group resumes.
    """

    RESUME_AFTER_S = 10

    def __init__(self, work_dir: str, name: str) -> None:
        self.pid_file = Path(work_dir, "run", f"{name}.pid")
        self.cancelled = threading.Event()
        self.cancelled_at = 0.0
        self.seen: list[str] = []
        self.not_paused: list[str] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def watch(self) -> None:
        while not self.done.is_set():
            group = read_int(self.pid_file)
            command = started_command(group) if group else None
            if group and command:
                self.pause_until_signalled(group, command)
                return
            time.sleep(0.001)

    def pause_until_signalled(self, group: int, command: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGSTOP)
        # Should the command never read paused, say what the processes were, and let the group go on.
        paused_by = time.monotonic() + self.RESUME_AFTER_S
        while not paused(command):
            if time.monotonic() > paused_by:
                self.not_paused = [process_line(pid) for pid in (group, command, *children_of(command))]
                os.killpg(group, signal.SIGCONT)
                return
            time.sleep(0.001)
        with contextlib.suppress(OSError):  # a command over already is seen as nothing
            self.seen = Path(f"/proc/{command}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")[:-1]
        self.cancelled_at = time.monotonic()
        self.cancelled.set()
        deadline = self.cancelled_at + self.RESUME_AFTER_S
        while not signal_pending(command) and not self.done.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGCONT)

    def should_cancel(self) -> bool:
        return self.cancelled.is_set()

    def run(self, spec: TrialSpec, transport: Transport) -> float:
        """Run the trial with this cancel; returns the seconds from the cancel to run_trial's return."""
        self.thread.start()
        try:
            self.outcome = run_trial(spec, transport, should_cancel=self.should_cancel)
        finally:
            self.done.set()
        assert not self.not_paused, f"SIGSTOP did not pause the command: {self.not_paused}"
        assert self.cancelled.is_set(), f"the step never showed up; the trial ended with {self.outcome.error!r}"
        return time.monotonic() - self.cancelled_at


def update_trial(transport: Transport, build, **changes) -> TrialSpec:
    spec = trial(transport.host, build, "pgecons-update", scale=SCALE, collect_sar=False, collect_wait_events=False)
    return replace(spec, **changes)


def assert_clean(transport: Transport) -> None:
    assert processes_under(transport.host.work_dir) == []


def marker_exists(transport: Transport, spec: TrialSpec) -> bool:
    return transport.exists(posixpath.join(cluster_dir(spec), MARKER_FILE))


@pytest.mark.parametrize(
    ("step", "what"),
    [("initdb", "initdb"), ("pgbench-init", "the data load (pgbench -i)")],
    ids=["initdb", "data-load"],
)
def test_a_cancel_stops_the_making_of_the_data_within_seconds_and_leaves_no_marker(
    local_transport, installed_build, step, what
):
    spec = update_trial(local_transport, installed_build)
    canceller = Canceller(local_transport.host.work_dir, step)

    stopped_after = canceller.run(spec, local_transport)

    print(f"{what}: the trial ended {stopped_after:.1f} s after the cancel; {canceller.outcome.notes}")
    assert (canceller.outcome.ok, canceller.outcome.error) == (False, "cancelled during reset")
    assert stopped_after < CANCEL_WITHIN_S
    assert_clean(local_transport)
    assert marker_exists(local_transport, spec) is False  # written last, once the data and its snapshot are whole


@pytest.mark.shared_pristine_data
@pytest.mark.parametrize(
    ("step", "what"), [("snapshot-data", "snapshot"), ("restore-data", "restore")], ids=["snapshot", "restore"]
)
def test_a_cancel_stops_a_copy_of_the_data_and_the_next_trial_finds_whole_data(
    local_transport, installed_build, step, what
):
    """A copy may be over before the cancel reaches it: either way the next trial, asked not to reset, runs."""
    spec = update_trial(local_transport, installed_build)
    if step == "restore-data":
        assert run_trial(spec, local_transport).ok  # data and snapshot made: the next trial resets from the snapshot
    canceller = Canceller(local_transport.host.work_dir, step)

    stopped_after = canceller.run(replace(spec, trial_id=8), local_transport)

    print(f"the {what}: the trial ended {stopped_after:.1f} s after the cancel; {canceller.outcome.notes}")
    assert canceller.outcome.error == "cancelled during reset"
    assert stopped_after < CANCEL_WITHIN_S
    assert_clean(local_transport)
    following = run_trial(replace(spec, trial_id=9, reset_data=False), local_transport)
    assert following.ok is True, following.error
    assert f"scaling factor: {SCALE}" in following.artifacts["pgbench_stdout"].decode()
    assert_clean(local_transport)


@pytest.mark.shared_pristine_data
def test_a_cancel_stops_the_checkpoint_and_vacuum_after_the_run(local_transport, installed_build):
    spec = update_trial(local_transport, installed_build)
    spec = replace(spec, scenario=replace(spec.scenario, checkpoint_vacuum=True))
    canceller = Canceller(local_transport.host.work_dir, "vacuum")

    stopped_after = canceller.run(spec, local_transport)

    print(f"VACUUM: the trial ended {stopped_after:.1f} s after the cancel; {canceller.outcome.notes}")
    assert canceller.outcome.error == "cancelled during checkpoint_vacuum"
    assert stopped_after < CANCEL_WITHIN_S
    assert_clean(local_transport)


@pytest.mark.shared_pristine_data
def test_a_cancel_stops_the_run_itself_within_seconds(local_transport, installed_build):
    spec = update_trial(local_transport, installed_build, scale=1, duration_s=60)
    canceller = Canceller(local_transport.host.work_dir, "pgbench")

    stopped_after = canceller.run(spec, local_transport)

    assert canceller.outcome.error == "cancelled during pgbench"
    assert stopped_after < CANCEL_WITHIN_S
    assert_clean(local_transport)
