"""What every transport shares: the result of a command, the errors, and background commands built on `run`.

Every command is an argument list, run on the target under coreutils `timeout`, so a command that
outlives its budget is stopped there even if the worker lost the connection. Long work (pgbench,
sar, perf, and through run_long initdb, pgbench -i, copies of data, VACUUM) starts in its own session
and process group with a PID file under <work_dir>/run, so a cancel, or the next attempt after a
crash, can find it and stop the whole group.

An attempt fences the host (take_fence): from then on each of its commands runs behind a guard that
checks the host's fence file still names it, so an attempt that a later one replaced touches nothing.
"""

from __future__ import annotations

import posixpath
import re
import shlex
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType

from workers import background_scripts as scripts
from workers.spec import HostSpec

# Seconds between the polite signal from `timeout` and its KILL.
KILL_AFTER_S = 5
# The local deadline waits this much longer than the remote watchdog, so the remote one acts first.
LOCAL_DEADLINE_SLACK_S = KILL_AFTER_S + 10
# `timeout` exits 124 when it stopped the command, 137 when it had to KILL it.
TIMEOUT_EXIT_STATUSES = (124, 137)
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class TransportError(Exception):
    """A target could not be reached, or did not do what was asked."""


class HostRefused(TransportError):
    """The host's record asks for something benchdash will not do on a target (an unsafe work directory)."""


class HostUnreachable(TransportError):
    """The host did not answer (connection refused, timed out, no SSH banner): it may come back, so the
    attempt waits for it (workers.host_wait) instead of failing."""


class ConnectionLost(TransportError):
    """The connection broke, or stopped answering, under a command (a frozen host, a network fault): what ran on the
    host may have finished there all the same, and the connection can be made again (Transport.reconnect)."""


class HostKeyUnknown(TransportError):
    """The host offered a key that is not pinned. An administrator must trust it first."""

    def __init__(self, address: str, port: int, key: str, fingerprint: str) -> None:
        self.key = key
        self.fingerprint = fingerprint
        super().__init__(
            f"host key of {address}:{port} is not trusted: {fingerprint} ({key.split()[0]}). "
            f"Check it out of band, then pin it on the host (admin, or `manage.py pin_host_key`)."
        )


class HostKeyChanged(TransportError):
    """The host offered a key other than the pinned one: a reinstall, or someone in the middle."""


class CommandFailed(TransportError):
    def __init__(self, result: CommandResult) -> None:
        self.result = result
        detail = result.stderr.decode("utf-8", errors="replace").strip()[-2000:]
        super().__init__(f"{shlex.join(result.argv)} exited with {result.exit_status}: {detail}")


class CommandTimeout(TransportError):
    """A command ran past its timeout and was stopped."""


class CommandStopped(TransportError):
    """A long command (run_long) was stopped because should_stop said so: a cancel, or a later attempt."""


class AttemptFenced(TransportError):
    """The host's fence names a later attempt: this one may no longer act there."""


@dataclass(frozen=True)
class Fence:
    """The fence file on a host and the token of the attempt that works there ("<store>.<attempt id>")."""

    path: str
    token: str

    def guard(self, argv: list[str]) -> list[str]:
        return ["sh", "-c", scripts.FENCE_GUARD, "sh", self.path, self.token, *argv]

    def refused(self, result: CommandResult) -> bool:
        return result.exit_status == scripts.FENCED and scripts.FENCED_MARK in result.stderr


@dataclass
class CommandResult:
    argv: list[str]
    exit_status: int
    stdout: bytes
    stderr: bytes
    duration_s: float

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


def env_command(argv: Sequence[str], env: Mapping[str, str] | None) -> list[str]:
    """argv run under `env NAME=VALUE ...` when there is an environment to set."""
    if not argv:
        raise ValueError("empty command")
    assignments = []
    for name, value in (env or {}).items():
        if not _ENV_NAME_RE.match(name):
            raise ValueError(f"invalid environment variable name: {name!r}")
        assignments.append(f"{name}={value}")
    command = [str(arg) for arg in argv]
    return ["env", *assignments, *command] if assignments else command


def wrap_command(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None) -> list[str]:
    """The argument list run on the target: the command under a `timeout` watchdog, with its environment."""
    return ["timeout", "-k", str(KILL_AFTER_S), f"{timeout:g}", *env_command(argv, env)]


def finish_result(result: CommandResult, *, timeout: float, check: bool) -> CommandResult:
    if result.exit_status in TIMEOUT_EXIT_STATUSES and result.duration_s >= timeout - 0.5:
        raise CommandTimeout(f"{shlex.join(result.argv)} ran past its timeout of {timeout:g}s and was stopped")
    if check and not result.ok:
        raise CommandFailed(result)
    return result


class Held(ABC):
    """A command kept running by its caller (Transport.hold): its stdin stays open until release(), and it ends with
    the caller's connection, so a worker that dies takes it along."""

    @abstractmethod
    def first_line(self, timeout: float) -> str:
        """The command's first line of output; "" when it ended without one."""

    @abstractmethod
    def release(self) -> None:
        """Close its stdin and let it end (within seconds)."""


class Transport(ABC):
    """What the engine needs from a target. Background work is built on `run`, with the same scripts on both."""

    # A long command's attempt is asked this often whether to stop; a stopped one gets this long to end.
    LONG_POLL_S = 1.0
    LONG_STOP_GRACE_S = 2.0

    def __init__(self, host: HostSpec) -> None:
        self.host = host
        self._background_argv: dict[str, list[str]] = {}
        self.fence: Fence | None = None
        # The work dir found private on this connection (workers/work_dir.py): checked once per transport.
        self.private_work_dir = ""
        # Set by the attempt while it runs: run_long stops its command when this returns True.
        self.should_stop: Callable[[], bool] | None = None
        # Called each time the connection is made again after it was lost (what it held went with it).
        self.on_reconnect: list[Callable[[], object]] = []

    @abstractmethod
    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 600,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        input: bytes | None = None,  # noqa: A002 (the contract's name, as in subprocess)
    ) -> CommandResult: ...

    @abstractmethod
    def hold(self, argv: Sequence[str], *, timeout: float) -> Held:
        """Start argv, unfenced, under its `timeout` watchdog, its stdin kept open until the returned Held's release."""

    @abstractmethod
    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None: ...

    @abstractmethod
    def put_file(self, local_path: str, remote_path: str) -> None: ...

    @abstractmethod
    def get_bytes(self, remote_path: str) -> bytes: ...

    def exists(self, remote_path: str) -> bool:
        return self.run(["test", "-e", remote_path], check=False, timeout=60).ok

    def command_line(self, argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None) -> list[str]:
        """What runs on the target for argv: under its `timeout` watchdog, behind the fence's guard once fenced."""
        wrapped = wrap_command(argv, timeout=timeout, env=env)
        return self.fence.guard(wrapped) if self.fence else wrapped

    def finish(self, result: CommandResult, *, timeout: float, check: bool) -> CommandResult:
        if self.fence is not None and self.fence.refused(result):
            raise AttemptFenced(result.stderr.decode("utf-8", "replace").strip())
        return finish_result(result, timeout=timeout, check=check)

    def take_fence(self, fence: Fence) -> None:
        """Make this host work for fence's attempt: refused (AttemptFenced) when it already works for a later one."""
        self.fence = None  # the take itself runs unguarded
        taken = self.run(["sh", "-c", scripts.FENCE_TAKE, "sh", fence.path, fence.token], check=False, timeout=60)
        if fence.refused(taken):
            raise AttemptFenced(taken.stderr.decode("utf-8", "replace").strip())
        if not taken.ok:
            raise CommandFailed(taken)
        self.fence = fence

    def run_long(
        self,
        argv: Sequence[str],
        *,
        name: str,
        timeout: float,
        check: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """A command that may run for minutes (initdb, pgbench -i, copying data, VACUUM). While should_stop is
        set it runs as a background group, polled every LONG_POLL_S, so that a cancel stops it within
        seconds (CommandStopped); otherwise it is a plain run."""
        if self.should_stop is None:
            return self.run(argv, timeout=timeout, check=check, env=env)
        self.start_background(name, argv, env=env)
        deadline = time.monotonic() + timeout
        while True:
            if self.should_stop():
                self.stop_background(name, "TERM", grace_s=self.LONG_STOP_GRACE_S)
                raise CommandStopped(f"{shlex.join(argv)} was stopped: its attempt was told to stop")
            try:
                result = self.wait_background(name, timeout=self.LONG_POLL_S)
            except CommandTimeout:
                if time.monotonic() < deadline:
                    continue
                self.stop_background(name, "TERM", grace_s=self.LONG_STOP_GRACE_S)
                raise CommandTimeout(
                    f"{shlex.join(argv)} ran past its timeout of {timeout:g}s and was stopped"
                ) from None
            if check and not result.ok:
                raise CommandFailed(result)
            return result

    @abstractmethod
    def close(self) -> None: ...

    def reconnect(self) -> None:  # noqa: B027 (a transport without a connection needs nothing)
        """Make the connection again, after ConnectionLost; raises HostUnreachable while the host does not answer."""

    def worker_address(self) -> str:
        """The address by which this host reaches the worker's own machine (the host `local`, which has no address of
        record): the loopback where the host is the worker itself."""
        return "127.0.0.1"

    def __enter__(self) -> Transport:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def run_dir(self) -> str:
        return posixpath.join(self.host.work_dir, "run")

    def start_background(
        self, name: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None
    ) -> None:
        """Start argv in its own session; returns once its PID file exists (or it already ended)."""
        _check_name(name)
        command = env_command(argv, env)
        self.run(
            ["sh", "-c", scripts.LAUNCH, "sh", scripts.WRAPPER, self.run_dir, name, cwd or "", *command],
            timeout=60,
        )
        self._background_argv[name] = [str(arg) for arg in argv]

    def wait_background(self, name: str, timeout: float) -> CommandResult:
        """Wait for a background command to end. exit_status is -9 when it was killed before it could report."""
        _check_name(name)
        started = time.monotonic()
        ticks = str(max(1, int(timeout * 10)))
        waited = self.run(
            ["sh", "-c", scripts.WAIT, "sh", self.run_dir, name, ticks], timeout=timeout + 120, check=False
        )
        if waited.exit_status == scripts.WAIT_TIMED_OUT:
            raise CommandTimeout(f"background command {name!r} still runs after {timeout:g}s")
        if waited.exit_status not in (0, scripts.WAIT_GONE):
            raise CommandFailed(waited)
        head, _, outputs = waited.stdout.partition(b"\n")
        status, _, size = head.decode("ascii", "replace").partition(" ")
        stdout_size = int(size) if size.isdigit() else len(outputs)
        return CommandResult(
            argv=self._background_argv.get(name, [name]),
            exit_status=int(status) if status.lstrip("-").isdigit() else -9,
            stdout=outputs[:stdout_size],
            stderr=outputs[stdout_size:],
            duration_s=time.monotonic() - started,
        )

    def stop_background(self, name: str, sig: str = "INT", grace_s: float = 10) -> None:
        """Signal the command's whole process group; KILL it if it is still there after grace_s."""
        self._stop(name, sig, grace_s)

    def background_group(self, name: str) -> str:
        """The process group of a running background command ("" once it ended): its PID file's first word."""
        _check_name(name)
        pid_file = posixpath.join(self.run_dir, f"{name}.pid")
        return self.run(["cat", "--", pid_file], check=False, timeout=60).text.split(" ", 1)[0].strip()

    def kill_leftovers(self) -> list[str]:
        """Stop every group an earlier trial left behind; returns the names of the ones that were running."""
        listing = self.run(
            ["find", self.run_dir, "-maxdepth", "1", "-type", "f", "-name", "*.pid"], check=False, timeout=60
        )
        names = sorted(posixpath.basename(line)[: -len(".pid")] for line in listing.text.split("\n") if line)
        return [name for name in names if self._stop(name, "TERM", 5)]

    def _stop(self, name: str, sig: str, grace_s: float) -> bool:
        _check_name(name)
        sig_name = sig.upper().removeprefix("SIG")
        if f"SIG{sig_name}" not in signal.Signals.__members__:
            raise ValueError(f"unknown signal {sig!r}")
        ticks = str(max(1, int(grace_s * 10)))
        stopped = self.run(
            ["sh", "-c", scripts.STOP, "sh", self.run_dir, name, sig_name, ticks],
            timeout=grace_s + 60,
            check=False,
        )
        if stopped.exit_status not in (0, scripts.STOP_NOTHING):
            raise CommandFailed(stopped)
        return stopped.exit_status == 0


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name.startswith("."):
        raise ValueError(f"invalid background command name: {name!r}")
