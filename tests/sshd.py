"""A real OpenSSH server for the tests, and a local target, as pytest fixtures.

`ssh_target` starts /usr/sbin/sshd on 127.0.0.1 at a free port with its own fresh host key, and
lets in one unprivileged user (`benchdash-ssh`, created when we are root; else the current user)
with a fresh client key. `local_target` is the worker's own machine, with a work directory the
local run user owns.
"""

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from workers.local_transport import local_run_user
from workers.pristine import PRISTINE_DIR
from workers.spec import HostSpec
from workers.transport import Transport, connect

SSHD = "/usr/sbin/sshd"
SSH_USER = "benchdash-ssh"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def generate_key(path: Path) -> str:
    """A fresh ed25519 key pair at path (and path.pub); returns the public key line."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(path)], check=True)
    return " ".join(path.with_name(path.name + ".pub").read_text().split()[:2])


def ensure_ssh_user(name: str = SSH_USER) -> pwd.struct_passwd:
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--system", "--create-home", "--shell", "/bin/sh", name], check=True)
    # '!' in shadow means "locked" to sshd without PAM; '*' means "no password", and keys still work.
    subprocess.run(["usermod", "-p", "*", name], check=True)
    return pwd.getpwnam(name)


def sshd_config(directory: Path, port: int, user: str, *, sftp: bool = True) -> Path:
    """sftp=False: no Subsystem line, as on a server whose administrator left SFTP out."""
    config = directory / "sshd_config"
    subsystem = "Subsystem sftp internal-sftp" if sftp else ""
    config.write_text(
        f"""Port {port}
ListenAddress 127.0.0.1
HostKey {directory}/host_key
PidFile {directory}/sshd.pid
AuthorizedKeysFile {directory}/authorized_keys
AllowUsers {user}
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin no
{subsystem}
LogLevel ERROR
# Tests on a loaded machine open many connections at once: past 10 unauthenticated, the default drops new ones at
# random ("beginning MaxStartups throttling" in sshd.log).
MaxStartups 100:30:200
"""
    )
    return config


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited: {process.stderr.read().decode() if process.stderr else ''}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{process.args[0]} did not listen on port {port}")


def owned_temp_dir(user: pwd.struct_passwd, prefix: str) -> str:
    path = tempfile.mkdtemp(prefix=prefix)
    os.chown(path, user.pw_uid, user.pw_gid)
    return path


def run_user_account() -> pwd.struct_passwd:
    """The account that commands on `local` run as: the run user when we are root, else ourselves."""
    run_user = local_run_user()
    return pwd.getpwnam(run_user) if run_user else pwd.getpwuid(os.geteuid())


def local_work_dir(prefix: str) -> str:
    """A fresh work directory for the host `local`, owned by the account its commands run as."""
    return owned_temp_dir(run_user_account(), prefix)


class SshServer:
    """A throwaway sshd on a free port of 127.0.0.1, with fresh host and client keys, its own user and work dir.
    It may be stopped and started again on the same port with the same keys (a target that goes away a while)."""

    def __init__(self, name: str, user_name: str = SSH_USER, *, sftp: bool = True) -> None:
        user = ensure_ssh_user(user_name)
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.directory = Path(tempfile.mkdtemp(prefix="benchdash-sshd-"))
        self.directory.chmod(0o755)  # sshd reads authorized_keys as the user
        host_key = generate_key(self.directory / "host_key")
        generate_key(self.directory / "client_key")
        shutil.copy(self.directory / "client_key.pub", self.directory / "authorized_keys")
        self.port = free_port()
        self.config = sshd_config(self.directory, self.port, user.pw_name, sftp=sftp)
        self.process: subprocess.Popen | None = None
        self.spec = HostSpec(
            name=name,
            address="127.0.0.1",
            port=self.port,
            username=user.pw_name,
            key_path=str(self.directory / "client_key"),
            host_key=host_key,
            work_dir=owned_temp_dir(user, "benchdash-ssh-work-"),
        )

    def start(self) -> None:
        # -e logs to stderr: into a file, never a pipe nobody reads, which fills (a line for every connection that
        # closes before the key exchange, as each readiness probe does) and would then stall sshd and its sessions.
        log = self.directory / "sshd.log"
        with log.open("ab") as output:
            self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config)], stderr=output)
        try:
            wait_for_port(self.port, self.process)
        except RuntimeError as error:
            raise RuntimeError(f"{error}\n{log.read_text(errors='replace')}") from None

    def stop(self) -> None:
        """Stop listening; sessions already open go on (as with sshd's own service stop)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
        shutil.rmtree(self.spec.work_dir, ignore_errors=True)


@contextmanager
def sshd_server(name: str, user_name: str = SSH_USER, *, sftp: bool = True) -> Iterator[SshServer]:
    server = SshServer(name, user_name, sftp=sftp)
    try:
        server.start()
        yield server
    finally:
        server.remove()


@contextmanager
def running_sshd(name: str) -> Iterator[HostSpec]:
    with sshd_server(name) as server:
        yield server.spec


@pytest.fixture(scope="session")
def ssh_target() -> Iterator[HostSpec]:
    with running_sshd("sshd-test") as host:
        yield host


@pytest.fixture(scope="session")
def session_pristine_data() -> Iterator[str]:
    """The pristine data (workers/pristine.py) of this pytest worker's local targets marked shared_pristine_data,
    shared as by the studies on one host: the first trial of a build makes it (initdb and pgbench -i), the others
    copy it, as every study after the first on a member's host does. tests/engine/test_pristine.py, with a target of
    its own, proves the making, the copy and a copy cut short."""
    path = local_work_dir("benchdash-pristine-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def local_target(request: pytest.FixtureRequest) -> Iterator[HostSpec]:
    """The worker's own machine, a fresh work dir; with the marker shared_pristine_data, its pristine data is the
    session's (a link its account may follow)."""
    work_dir = local_work_dir("benchdash-local-work-")
    if request.node.get_closest_marker("shared_pristine_data"):
        os.symlink(request.getfixturevalue("session_pristine_data"), os.path.join(work_dir, PRISTINE_DIR))
    yield HostSpec(name="local", work_dir=work_dir)
    shutil.rmtree(work_dir, ignore_errors=True)


@pytest.fixture
def ssh_transport(ssh_target: HostSpec) -> Iterator[Transport]:
    with connect(ssh_target) as transport:
        yield transport


@pytest.fixture
def local_transport(local_target: HostSpec) -> Iterator[Transport]:
    with connect(local_target) as transport:
        yield transport


@pytest.fixture(params=["ssh", "local"])
def any_transport(request: pytest.FixtureRequest) -> Transport:
    """The same test against an SSH target and the local one."""
    return request.getfixturevalue(f"{request.param}_transport")


def counted_commands(transport: Transport, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The argument lists of the commands the transport runs from now on (for a test of how many a step takes)."""
    commands: list[list[str]] = []
    run = transport.run

    def counting(argv, **options):
        commands.append(list(argv))
        return run(argv, **options)

    monkeypatch.setattr(transport, "run", counting)
    return commands


def process_is_gone(pid: int) -> bool:
    """True when no such process runs (a zombie nobody reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"
