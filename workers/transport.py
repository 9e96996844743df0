"""Run a command, or move a file, on a target: over SSH (paramiko) or on the worker's own machine.

Every command is an argument list. Over SSH it is joined with shlex.join and wrapped in coreutils
`timeout`, so a command that outlives its budget is stopped on the target even if the connection
is gone. Files travel by SFTP. Long work (pgbench, sar, perf) starts in its own session and process
group with a PID file under <work_dir>/run, so a cancel, or the next attempt after a crash, can
find it and stop the whole group.

This module is the only importer of paramiko.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import posixpath
import pwd
import re
import select
import shlex
import signal
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import paramiko

from workers import background_scripts as scripts
from workers.spec import HostSpec

# Seconds between the polite signal from `timeout` and its KILL.
KILL_AFTER_S = 5
# The local deadline waits this much longer than the remote watchdog, so the remote one acts first.
LOCAL_DEADLINE_SLACK_S = KILL_AFTER_S + 10
# `timeout` exits 124 when it stopped the command, 137 when it had to KILL it.
TIMEOUT_EXIT_STATUSES = (124, 137)
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_READ_CHUNK = 1 << 16


class TransportError(Exception):
    """A target could not be reached, or did not do what was asked."""


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


def _finish(result: CommandResult, *, timeout: float, check: bool) -> CommandResult:
    if result.exit_status in TIMEOUT_EXIT_STATUSES and result.duration_s >= timeout - 0.5:
        raise CommandTimeout(f"{shlex.join(result.argv)} ran past its timeout of {timeout:g}s and was stopped")
    if check and not result.ok:
        raise CommandFailed(result)
    return result


class Transport(ABC):
    """What the engine needs from a target. Background work is built on `run`, with the same scripts on both."""

    def __init__(self, host: HostSpec) -> None:
        self.host = host
        self._background_argv: dict[str, list[str]] = {}

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
    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None: ...

    @abstractmethod
    def put_file(self, local_path: str, remote_path: str) -> None: ...

    @abstractmethod
    def get_bytes(self, remote_path: str) -> bytes: ...

    def exists(self, remote_path: str) -> bool:
        return self.run(["test", "-e", remote_path], check=False, timeout=60).ok

    @abstractmethod
    def close(self) -> None: ...

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
            ["sh", "-c", scripts.WAIT, "sh", self.run_dir, name, ticks], timeout=timeout + 60, check=False
        )
        if waited.exit_status == scripts.WAIT_TIMED_OUT:
            raise CommandTimeout(f"background command {name!r} still runs after {timeout:g}s")
        if waited.exit_status not in (0, scripts.WAIT_GONE):
            raise CommandFailed(waited)
        outputs = self.run(["sh", "-c", scripts.STATUS, "sh", self.run_dir, name], timeout=120)
        status = outputs.text.strip()
        return CommandResult(
            argv=self._background_argv.get(name, [name]),
            exit_status=int(status) if status.lstrip("-").isdigit() else -9,
            stdout=self.get_bytes(posixpath.join(self.run_dir, f"{name}.out")),
            stderr=self.get_bytes(posixpath.join(self.run_dir, f"{name}.err")),
            duration_s=time.monotonic() - started,
        )

    def stop_background(self, name: str, sig: str = "INT", grace_s: float = 10) -> None:
        """Signal the command's whole process group; KILL it if it is still there after grace_s."""
        self._stop(name, sig, grace_s)

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


class LocalTransport(Transport):
    """The worker's own machine. As root, every command runs as the unprivileged run user (runuser)."""

    def __init__(self, host: HostSpec, run_as: str | None = None) -> None:
        super().__init__(host)
        self.run_as = run_as if run_as is not None else _local_run_user()

    def _prefix(self) -> list[str]:
        return ["runuser", "-u", self.run_as, "--"] if self.run_as else []

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 600,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        input: bytes | None = None,  # noqa: A002
    ) -> CommandResult:
        command = self._prefix() + wrap_command(argv, timeout=timeout, env=env)
        started = time.monotonic()
        process = subprocess.Popen(  # noqa: S603 (an argument list, no shell)
            command,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(input, timeout=timeout + LOCAL_DEADLINE_SLACK_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise CommandTimeout(f"{shlex.join(argv)} ran past its timeout of {timeout:g}s and was killed") from None
        result = CommandResult(list(argv), process.returncode, stdout, stderr, time.monotonic() - started)
        return _finish(result, timeout=timeout, check=check)

    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None:
        # Written by the run user itself, so the file belongs to it.
        self.run(["sh", "-c", scripts.WRITE_FILE, "sh", remote_path, f"{mode:o}"], input=data, timeout=600)

    def put_file(self, local_path: str, remote_path: str) -> None:
        self.put_bytes(Path(local_path).read_bytes(), remote_path, mode=os.stat(local_path).st_mode & 0o777)

    def get_bytes(self, remote_path: str) -> bytes:
        return self.run(["cat", "--", remote_path], timeout=600).stdout

    def close(self) -> None:
        """Nothing is held open between commands."""


def _local_run_user() -> str:
    if os.geteuid() != 0:
        return ""
    user = os.environ.get("BENCHDASH_LOCAL_USER", "benchdash")
    try:
        pwd.getpwnam(user)
    except KeyError:
        raise TransportError(f"the local run user {user!r} does not exist (bash deploy/setup.sh creates it)") from None
    return user


def parse_public_key(key_line: str) -> paramiko.PKey:
    """'ssh-ed25519 AAAA... [comment]' -> a paramiko key."""
    parts = key_line.split()
    if len(parts) < 2:
        raise ValueError("a host key reads 'TYPE BASE64 [comment]'")
    try:
        return paramiko.PKey.from_type_string(parts[0], base64.b64decode(parts[1]))
    except (ValueError, paramiko.SSHException) as exc:
        raise ValueError(f"not a usable public key: {exc}") from exc


def key_line(key: paramiko.PKey) -> str:
    return f"{key.get_name()} {key.get_base64()}"


def key_fingerprint(key: paramiko.PKey | str) -> str:
    """The SHA256 fingerprint as OpenSSH prints it: 'SHA256:' + unpadded base64 of the key blob's digest."""
    pkey = parse_public_key(key) if isinstance(key, str) else key
    digest = hashlib.sha256(pkey.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def fetch_host_key(address: str, port: int = 22, timeout: float = 15) -> str:
    """The host key a server offers, as 'TYPE BASE64', without logging in."""
    try:
        with paramiko.Transport((address, port)) as ssh:
            ssh.banner_timeout = timeout
            ssh.start_client(timeout=timeout)
            return key_line(ssh.get_remote_server_key())
    except (OSError, paramiko.SSHException) as exc:
        raise TransportError(f"cannot read the host key of {address}:{port}: {exc}") from exc


class _RefuseUnknownHostKey(paramiko.MissingHostKeyPolicy):
    def __init__(self, port: int) -> None:
        self.port = port

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        raise HostKeyUnknown(hostname, self.port, key_line(key), key_fingerprint(key))


class SSHTransport(Transport):
    """One SSH connection to a target, reused for every command and file of a trial."""

    CONNECT_TIMEOUT_S = 15
    BANNER_TIMEOUT_S = 15
    AUTH_TIMEOUT_S = 20
    CHANNEL_TIMEOUT_S = 30
    KEEPALIVE_S = 15

    def __init__(self, host: HostSpec) -> None:
        super().__init__(host)
        self._client: paramiko.SSHClient | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._connect()

    def _connect(self) -> None:
        host = self.host
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(_RefuseUnknownHostKey(host.port))
        if host.host_key:
            pinned = parse_public_key(host.host_key)
            known_name = host.address if host.port == 22 else f"[{host.address}]:{host.port}"
            client.get_host_keys().add(known_name, pinned.get_name(), pinned)
        try:
            client.connect(
                host.address,
                port=host.port,
                username=host.username or None,
                key_filename=host.key_path or None,
                timeout=self.CONNECT_TIMEOUT_S,
                banner_timeout=self.BANNER_TIMEOUT_S,
                auth_timeout=self.AUTH_TIMEOUT_S,
                channel_timeout=self.CHANNEL_TIMEOUT_S,
                allow_agent=False,
                look_for_keys=False,
            )
        except TransportError:
            client.close()
            raise
        except paramiko.BadHostKeyException as exc:
            client.close()
            raise HostKeyChanged(
                f"HOST KEY CHANGED for {host.address}:{host.port}: it offers {key_fingerprint(exc.key)}, "
                f"but {key_fingerprint(exc.expected_key)} is pinned. Refusing to connect: the server was "
                f"reinstalled, or someone is in the middle. Re-pin only after checking it out of band."
            ) from exc
        except (OSError, paramiko.SSHException) as exc:
            client.close()
            raise TransportError(f"cannot connect to {host.username}@{host.address}:{host.port}: {exc}") from exc
        ssh = client.get_transport()
        assert ssh is not None
        ssh.set_keepalive(self.KEEPALIVE_S)
        self._client = client

    def _session(self) -> paramiko.Channel:
        ssh = self._client.get_transport() if self._client else None
        if ssh is None or not ssh.is_active():
            self.close()
            self._connect()
            ssh = self._client.get_transport() if self._client else None
            assert ssh is not None
        try:
            return ssh.open_session(timeout=self.CHANNEL_TIMEOUT_S)
        except (OSError, paramiko.SSHException) as exc:
            raise TransportError(f"cannot open a session on {self.host.address}: {exc}") from exc

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 600,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        input: bytes | None = None,  # noqa: A002
    ) -> CommandResult:
        command = shlex.join(wrap_command(argv, timeout=timeout, env=env))
        if cwd:
            command = f"cd {shlex.quote(cwd)} && {command}"
        started = time.monotonic()
        channel = self._session()
        try:
            channel.exec_command(command)
            stdout, stderr = _pump(channel, input or b"", started + timeout + LOCAL_DEADLINE_SLACK_S)
            exit_status = channel.recv_exit_status()
        except CommandTimeout:
            raise CommandTimeout(f"{shlex.join(argv)} gave no result within {timeout:g}s; session closed") from None
        except (OSError, paramiko.SSHException) as exc:
            raise TransportError(f"{shlex.join(argv)} on {self.host.address}: {exc}") from exc
        finally:
            channel.close()
        result = CommandResult(list(argv), exit_status, stdout, stderr, time.monotonic() - started)
        return _finish(result, timeout=timeout, check=check)

    def _sftp_client(self) -> paramiko.SFTPClient:
        if self._sftp is None or self._sftp.get_channel() is None or self._sftp.get_channel().closed:
            self._session().close()  # reconnects when the connection was lost
            assert self._client is not None
            self._sftp = self._client.open_sftp()
        return self._sftp

    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None:
        self._ensure_parent(remote_path)
        try:
            sftp = self._sftp_client()
            sftp.putfo(io.BytesIO(data), remote_path)
            sftp.chmod(remote_path, mode)
        except OSError as exc:
            raise TransportError(f"cannot write {remote_path} on {self.host.address}: {exc}") from exc

    def put_file(self, local_path: str, remote_path: str) -> None:
        self._ensure_parent(remote_path)
        try:
            sftp = self._sftp_client()
            sftp.put(local_path, remote_path)
            sftp.chmod(remote_path, os.stat(local_path).st_mode & 0o777)
        except OSError as exc:
            raise TransportError(f"cannot upload {local_path} to {remote_path} on {self.host.address}: {exc}") from exc

    def get_bytes(self, remote_path: str) -> bytes:
        buffer = io.BytesIO()
        try:
            self._sftp_client().getfo(remote_path, buffer)
        except OSError as exc:
            raise TransportError(f"cannot read {remote_path} on {self.host.address}: {exc}") from exc
        return buffer.getvalue()

    def exists(self, remote_path: str) -> bool:
        try:
            self._sftp_client().stat(remote_path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise TransportError(f"cannot stat {remote_path} on {self.host.address}: {exc}") from exc
        return True

    def _ensure_parent(self, remote_path: str) -> None:
        parent = posixpath.dirname(remote_path)
        if parent:
            self.run(["mkdir", "-p", "--", parent], timeout=60)

    def close(self) -> None:
        if self._sftp is not None:
            self._sftp.close()
            self._sftp = None
        if self._client is not None:
            self._client.close()
            self._client = None


def _pump(channel: paramiko.Channel, data: bytes, deadline: float) -> tuple[bytes, bytes]:
    """Feed stdin and drain stdout and stderr together, so neither side fills up and blocks the other."""
    stdout, stderr = bytearray(), bytearray()
    pending = memoryview(data)
    if not pending:
        channel.shutdown_write()
    while True:
        busy = False
        if channel.recv_ready():
            stdout += channel.recv(_READ_CHUNK)
            busy = True
        if channel.recv_stderr_ready():
            stderr += channel.recv_stderr(_READ_CHUNK)
            busy = True
        if pending and channel.send_ready():
            pending = pending[channel.send(pending[:_READ_CHUNK]) :]
            if not pending:
                channel.shutdown_write()
            busy = True
        drained = not (busy or channel.recv_ready() or channel.recv_stderr_ready())
        if drained and channel.exit_status_ready() and channel.eof_received:
            return bytes(stdout), bytes(stderr)
        if time.monotonic() > deadline:
            raise CommandTimeout("deadline passed")
        if not busy:
            select.select([channel], [], [], 0.05)


def connect(host: HostSpec) -> Transport:
    """A transport to the host: the worker itself for `local`, SSH for every other host."""
    if host.is_local:
        return LocalTransport(host)
    if not host.address:
        raise TransportError(f"host {host.name!r} has no address")
    return SSHTransport(host)
