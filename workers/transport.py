"""Run a command, or move a file, on a target: over SSH (paramiko), or locally for the host `local`.

Commands are argument lists joined with shlex.join; files travel by SFTP, never inside a shell
string. Host keys are pinned: an unknown key is refused with its fingerprint, a changed one loudly.
The shared pieces (CommandResult, the errors, background commands) live in transport_base and are
re-exported here, so the engine imports everything from this module.

This module is the only importer of paramiko.
"""

import base64
import hashlib
import io
import os
import posixpath
import select
import shlex
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

import paramiko

from workers.addresses import IPAddress, address_problem, refused_reason, resolve
from workers.local_transport import LocalTransport
from workers.paths import unsafe_path_reason
from workers.spec import HostSpec
from workers.transport_base import (
    LOCAL_DEADLINE_SLACK_S,
    CommandFailed,
    CommandResult,
    CommandTimeout,
    ConnectionLost,
    Held,
    HostKeyChanged,
    HostKeyUnknown,
    HostRefused,
    HostUnreachable,
    Transport,
    TransportError,
    wrap_command,
)

__all__ = [
    "CommandFailed",
    "CommandResult",
    "CommandTimeout",
    "ConnectionLost",
    "HostKeyChanged",
    "HostKeyUnknown",
    "HostRefused",
    "HostUnreachable",
    "LocalTransport",
    "SSHTransport",
    "Transport",
    "TransportError",
    "connect",
    "fetch_host_key",
    "key_fingerprint",
    "parse_public_key",
]

_READ_CHUNK = 1 << 16


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


def fetch_host_key(address: str, port: int = 22, timeout: float = 15, *, allow_link_local: bool = False) -> str:
    """The host key a server offers, as 'TYPE BASE64', without logging in."""
    try:
        with paramiko.Transport(checked_socket(address, port, timeout, allow_link_local=allow_link_local)) as ssh:
            ssh.banner_timeout = timeout
            ssh.start_client(timeout=timeout)
            return key_line(ssh.get_remote_server_key())
    except (OSError, paramiko.SSHException) as exc:
        raise TransportError(f"cannot read the host key of {address}:{port}: {exc}") from exc


def checked_socket(address: str, port: int, timeout: float, *, allow_link_local: bool) -> socket.socket:
    """A TCP connection to `address`, made to the first answering address it resolves to, once every one of them
    has been checked (workers/addresses.py): the name is resolved once, so what is checked is what is reached."""
    ips = resolve(address)
    if not ips:
        raise HostUnreachable(f"cannot resolve {address}")
    refused = None if allow_link_local else address_problem(ips)
    if refused is not None:
        raise HostRefused(refused_reason(address, *refused))
    return _first_answering(ips, port, timeout)


def _first_answering(ips: list[IPAddress], port: int, timeout: float) -> socket.socket:
    failures: list[OSError] = []
    for ip in ips:
        try:
            return socket.create_connection((str(ip), port), timeout=timeout)
        except OSError as exc:
            failures.append(exc)
    raise failures[-1]


class _RefuseUnknownHostKey(paramiko.MissingHostKeyPolicy):
    """Never trust on first use: an administrator pins the key after checking it."""

    def __init__(self, address: str, port: int) -> None:
        self.address = address
        self.port = port

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        raise HostKeyUnknown(self.address, self.port, key_line(key), key_fingerprint(key))


class SSHTransport(Transport):
    """One SSH connection to a target, reused for every command and file of a trial."""

    CONNECT_TIMEOUT_S = 15
    BANNER_TIMEOUT_S = 15
    AUTH_TIMEOUT_S = 20
    # How soon a frozen host (up at the TCP level, silent above it) is noticed: a new command's channel that is not
    # opened within CHANNEL_TIMEOUT_S, a file call unanswered for SFTP_IDLE_TIMEOUT_S, a running command silent for
    # SILENCE_PROBE_S whose host then does not open a probe channel within CHANNEL_TIMEOUT_S: at most 45 s.
    CHANNEL_TIMEOUT_S = 30
    SFTP_IDLE_TIMEOUT_S = 30
    SILENCE_PROBE_S = 15
    KEEPALIVE_S = 15

    def __init__(self, host: HostSpec) -> None:
        super().__init__(host)
        self._client: paramiko.SSHClient | None = None
        self._sftp: paramiko.SFTPClient | None = None
        # paramiko's SFTP client is not thread-safe (paramiko #718, #1836): two threads' requests on its one channel
        # read each other's answers, and one waits for an answer already taken. Commands need no lock (each has its
        # own channel); file calls take turns.
        self._sftp_lock = threading.Lock()
        self._connect()

    def _connect(self) -> None:
        host = self.host
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(_RefuseUnknownHostKey(host.address, host.port))
        if host.host_key:
            pinned = parse_public_key(host.host_key)
            known_name = host.address if host.port == 22 else f"[{host.address}]:{host.port}"
            client.get_host_keys().add(known_name, pinned.get_name(), pinned)
        try:
            sock = checked_socket(
                host.address, host.port, self.CONNECT_TIMEOUT_S, allow_link_local=host.allow_link_local
            )
            client.connect(
                host.address,
                port=host.port,
                sock=sock,
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
        except paramiko.AuthenticationException as exc:
            client.close()
            raise TransportError(f"cannot log in as {host.username}@{host.address}:{host.port}: {exc}") from exc
        except (OSError, paramiko.SSHException) as exc:
            client.close()
            raise HostUnreachable(f"cannot connect to {host.username}@{host.address}:{host.port}: {exc}") from exc
        ssh = client.get_transport()
        assert ssh is not None
        ssh.set_keepalive(self.KEEPALIVE_S)
        # paramiko leaves Nagle's algorithm on: every short command then waits ~40 ms for delayed ACKs.
        ssh.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # type: ignore[union-attr]
        self._client = client
        for hook in list(self.on_reconnect):
            hook()

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
            raise ConnectionLost(f"cannot open a session on {self.host.address}: {exc}") from exc

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
        command = shlex.join(self.command_line(argv, timeout=timeout, env=env))
        if not input:
            # Its stdin ends at once on the host, with no EOF for the worker to send: paramiko sends a channel's EOF
            # after letting go of its lock, and a command that ended meanwhile (its channel closed both ways by then)
            # got an EOF for a channel sshd no longer had, which it answers by dropping the connection ("ieof packet
            # referred to nonexistent channel"): commands run side by side on it all failed with ConnectionLost.
            command = f"{command} < /dev/null"
        if cwd:
            command = f"cd {shlex.quote(cwd)} && {command}"
        started = time.monotonic()
        channel = self._session()
        try:
            self._exec(channel, command)
            deadline = started + timeout + LOCAL_DEADLINE_SLACK_S
            stdout, stderr = _pump(channel, input or b"", deadline, self._check_answers)
            exit_status = channel.recv_exit_status()
        except CommandTimeout:
            raise CommandTimeout(f"{shlex.join(argv)} gave no result within {timeout:g}s; session closed") from None
        except (OSError, paramiko.SSHException) as exc:
            raise ConnectionLost(f"{shlex.join(argv)} on {self.host.address}: {exc}") from exc
        finally:
            channel.close()
        result = CommandResult(list(argv), exit_status, stdout, stderr, time.monotonic() - started)
        return self.finish(result, timeout=timeout, check=check)

    def worker_address(self) -> str:
        """The local end of this SSH connection: the worker's address on the route the host's packets take back."""
        self._session().close()  # reconnects when the connection was lost
        assert self._client is not None
        ssh = self._client.get_transport()
        assert ssh is not None
        return str(ssh.sock.getsockname()[0])  # type: ignore[union-attr]

    def _check_answers(self) -> None:
        """Raises paramiko.SSHException when the host does not open a channel in time: a command may be silent for
        minutes (a data load, VACUUM), its host must not be. No process starts on the host for it."""
        ssh = self._client.get_transport() if self._client else None
        if ssh is None:
            raise paramiko.SSHException("the connection is closed")
        ssh.open_session(timeout=self.CHANNEL_TIMEOUT_S).close()

    def _exec(self, channel: paramiko.Channel, command: str) -> None:
        """channel.exec_command(command), given up after CHANNEL_TIMEOUT_S: paramiko waits for the answer to an exec
        request without a limit, and a host that froze, or a channel the connection dropped meanwhile, would hang the
        attempt for ever. Closed after the limit, it raises instead."""
        gave_up = threading.Event()
        unanswered = threading.Timer(self.CHANNEL_TIMEOUT_S, _close_unanswered, (channel, gave_up))
        unanswered.start()
        try:
            channel.exec_command(command)
        finally:
            unanswered.cancel()
            unanswered.join()
        if gave_up.is_set():  # answered just as the limit passed: the channel is closed all the same
            raise paramiko.SSHException(f"no answer to the exec request within {self.CHANNEL_TIMEOUT_S}s")

    def hold(self, argv: Sequence[str], *, timeout: float) -> Held:
        channel = self._session()
        try:
            self._exec(channel, shlex.join(wrap_command(argv, timeout=timeout, env=None)))
        except (OSError, paramiko.SSHException) as exc:
            channel.close()
            raise ConnectionLost(f"{shlex.join(argv)} on {self.host.address}: {exc}") from exc
        return _HeldChannel(channel, self.host.address)

    def _sftp_client(self) -> paramiko.SFTPClient:
        if self._sftp is None or self._sftp.get_channel() is None or self._sftp.get_channel().closed:
            self._session().close()  # reconnects when the connection was lost
            self._sftp = self._open_sftp()
            # Each read or write gives up after this long without an answer (socket.timeout): no endless hang.
            self._sftp.get_channel().settimeout(self.SFTP_IDLE_TIMEOUT_S)  # type: ignore[union-attr]
        return self._sftp

    def _open_sftp(self) -> paramiko.SFTPClient:
        """The SFTP session; a server that refuses the subsystem closes the channel while the connection stays up,
        which paramiko reports as a bare "Channel closed": said here as what it is, not as a lost connection."""
        assert self._client is not None
        try:
            return self._client.open_sftp()
        except _CONNECTION_ERRORS as exc:
            ssh = self._client.get_transport()
            if ssh is None or not ssh.is_active():
                raise
            raise TransportError(
                f"the SSH server at {self.host.address} has no sftp subsystem (Subsystem sftp in sshd_config): {exc}"
            ) from exc

    @contextmanager
    def _file_call(self, what: str) -> Iterator[paramiko.SFTPClient]:
        """The SFTP client for one file call: calls take turns (the lock), and a failure says what was tried."""
        try:
            with self._sftp_lock:
                yield self._sftp_client()
        except _FILE_ERRORS as exc:
            raise _file_error(f"{what} on {self.host.address}", exc) from exc

    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None:
        self._ensure_parent(remote_path)
        # The mode is set before the content is written: a secret is never readable by others.
        with self._file_call(f"cannot write {remote_path}") as sftp, sftp.open(remote_path, "wb") as remote:
            remote.chmod(mode)
            remote.write(data)

    def put_file(self, local_path: str, remote_path: str) -> None:
        self._ensure_parent(remote_path)
        with self._file_call(f"cannot upload {local_path} to {remote_path}") as sftp:
            sftp.put(local_path, remote_path)
            sftp.chmod(remote_path, os.stat(local_path).st_mode & 0o777)

    def get_bytes(self, remote_path: str) -> bytes:
        buffer = io.BytesIO()
        with self._file_call(f"cannot read {remote_path}") as sftp:
            sftp.getfo(remote_path, buffer)
        return buffer.getvalue()

    def exists(self, remote_path: str) -> bool:
        with self._file_call(f"cannot stat {remote_path}") as sftp:
            try:
                sftp.stat(remote_path)
            except FileNotFoundError:
                return False
        return True

    def _ensure_parent(self, remote_path: str) -> None:
        # A command, though SFTP could look: it passes the fence, which SFTP does not, so a superseded attempt
        # writes nothing (tests/engine/test_transport_fence.py).
        parent = posixpath.dirname(remote_path)
        if parent:
            self.run(["mkdir", "-p", "--", parent], timeout=60)

    def reconnect(self) -> None:
        self.close()
        self._connect()

    def close(self) -> None:
        if self._sftp is not None:
            self._sftp.close()
            self._sftp = None
        if self._client is not None:
            self._client.close()
            self._client = None


# What an SFTP operation raises when the connection under it is lost (a read that timed out, a channel cut off),
# and the errors of the file itself (OSError: no such file, no permission).
_CONNECTION_ERRORS = (TimeoutError, EOFError, paramiko.SSHException)
_FILE_ERRORS = (*_CONNECTION_ERRORS, OSError)


def _file_error(what: str, exc: BaseException) -> TransportError:
    """A lost connection (the attempt waits for the host and retries) or another error, with the exception's type
    where it has no message (a bare socket timeout)."""
    kind = ConnectionLost if isinstance(exc, _CONNECTION_ERRORS) else TransportError
    return kind(f"{what}: {str(exc) or type(exc).__name__}")


class _HeldChannel(Held):
    """A held command over SSH: sshd ends it when its channel closes, the worker's connection going down included."""

    RELEASE_WAIT_S = 10

    def __init__(self, channel: paramiko.Channel, address: str) -> None:
        self.channel = channel
        self.address = address

    def first_line(self, timeout: float) -> str:
        self.channel.settimeout(timeout)
        output = b""
        try:
            while b"\n" not in output and (chunk := self.channel.recv(_READ_CHUNK)):
                output += chunk
        except (OSError, paramiko.SSHException) as exc:
            raise ConnectionLost(f"a held command on {self.address} said nothing: {exc}") from exc
        return output.decode("utf-8", "replace").partition("\n")[0].strip()

    def release(self) -> None:
        try:
            self.channel.shutdown_write()
            self.channel.status_event.wait(self.RELEASE_WAIT_S)
        except (OSError, paramiko.SSHException):
            pass  # the connection is gone, and the command with it
        finally:
            self.channel.close()


def _close_unanswered(channel: paramiko.Channel, gave_up: threading.Event) -> None:
    gave_up.set()
    channel.close()


def _connection_state(channel: paramiko.Channel) -> str:
    ssh = channel.get_transport()
    return "the connection is still up" if ssh is not None and ssh.is_active() else "the connection under it went down"


def _pump(
    channel: paramiko.Channel, data: bytes, deadline: float, check_answers: Callable[[], None]
) -> tuple[bytes, bytes]:
    """Feed stdin (its EOF once all of data is sent; a command without data reads /dev/null, SSHTransport.run) and
    drain stdout and stderr together, so neither side fills up and blocks the other; after SILENCE_PROBE_S with
    nothing from the command, check_answers that its host still does."""
    stdout, stderr = bytearray(), bytearray()
    pending = memoryview(data)
    heard = time.monotonic()
    while True:
        if time.monotonic() - heard > SSHTransport.SILENCE_PROBE_S:
            check_answers()
            heard = time.monotonic()
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
        if busy:
            heard = time.monotonic()
        drained = not (busy or channel.recv_ready() or channel.recv_stderr_ready())
        if drained and channel.exit_status_ready() and channel.eof_received:
            return bytes(stdout), bytes(stderr)
        if drained and channel.closed:  # closed without an end of output
            raise paramiko.SSHException(f"the channel closed before the command ended ({_connection_state(channel)})")
        if time.monotonic() > deadline:
            raise CommandTimeout("deadline passed")
        if not busy:
            select.select([channel], [], [], 0.05)


def connect(host: HostSpec) -> Transport:
    """A transport to the host: the worker itself for `local`, SSH for every other host.

    A host whose work directory is not a safe path (workers/paths.py) is refused before anything runs there.
    """
    if reason := unsafe_path_reason(f"host {host.name!r}: work directory", host.work_dir):
        raise HostRefused(reason)
    if host.is_local:
        return LocalTransport(host)
    if not host.address:
        raise TransportError(f"host {host.name!r} has no address")
    return SSHTransport(host)
