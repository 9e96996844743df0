"""The worker's own machine as a target: the host named `local`."""

import os
import pwd
import re
import select
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from workers import background_scripts as scripts
from workers.spec import HostSpec
from workers.transport_base import (
    LOCAL_DEADLINE_SLACK_S,
    CommandResult,
    CommandTimeout,
    Held,
    Transport,
    TransportError,
    wrap_command,
)

DEFAULT_LOCAL_USER = "benchdash-clusters"
# Where a command starts unless told otherwise: the worker's own directory may be one the clusters' account cannot
# enter (a checkout in root's 0700 home), and `find` there failed ("Failed to restore initial working directory").
START_DIR = "/"
# What `sudo -n` says when no sudoers rule lets it run the command without a password.
_SUDO_NEEDS_A_PASSWORD = b"sudo: a password is required"


def sudo_rule_file(worker_account: str, clusters_account: str) -> str:
    """Where `make setup` writes the rule that lets the worker's account act as the clusters' account: one file per
    pair (deploy/lib.sh's sudo_rule_file names it the same way); sudo skips names with '.' or '~'."""
    return "/etc/sudoers.d/benchdash-" + re.sub(r"[^A-Za-z0-9_-]", "_", f"{worker_account}-{clusters_account}")


class SudoRefused(TransportError):
    """sudo would not run commands as the clusters' account: the sudoers rule that `make setup` writes is missing.
    Its failure kind (workers/error_kinds.py) has the study page explain the fix in the reader's language."""

    def __init__(self, account: str) -> None:
        self.account = account
        rule_file = sudo_rule_file(pwd.getpwuid(os.geteuid()).pw_name, account)
        super().__init__(
            f"sudo refused to run commands as {account} without a password: run `make setup` as root; "
            f"it writes {rule_file}."
        )


class LocalTransport(Transport):
    """The worker's own machine. Every command runs as the account of the benchmark clusters (local_run_user):
    reached with setpriv when the worker is root, else with `sudo -n -u` (a sudoers rule that lets the worker's
    account run commands as that one account, docs/SECURITY.md). Either way the command starts in that account's
    own environment, as over SSH: the worker's (the store's and Redis's URLs, the secret key) never reaches the
    clusters, whose servers a custom script may ask to read it."""

    def __init__(self, host: HostSpec, run_as: str | None = None) -> None:
        super().__init__(host)
        self.run_as = run_as if run_as is not None else local_run_user()
        self._switch = self._prefix()  # once: the account's ids are looked up for every command otherwise

    def _prefix(self) -> list[str]:
        if not self.run_as:
            return []
        if os.geteuid() == 0:
            return switch_user_argv(self.run_as)
        return ["sudo", "-n", "-u", self.run_as, "--"]

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
        command = self._switch + self.command_line(argv, timeout=timeout, env=env)
        started = time.monotonic()
        process = subprocess.Popen(  # noqa: S603 (an argument list, no shell)
            command,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd or START_DIR,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(input, timeout=timeout + LOCAL_DEADLINE_SLACK_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise CommandTimeout(f"{shlex.join(argv)} ran past its timeout of {timeout:g}s and was killed") from None
        if process.returncode == 1 and command[0] == "sudo" and stderr.startswith(_SUDO_NEEDS_A_PASSWORD):
            raise SudoRefused(self.run_as)
        result = CommandResult(list(argv), process.returncode, stdout, stderr, time.monotonic() - started)
        return self.finish(result, timeout=timeout, check=check)

    def hold(self, argv: Sequence[str], *, timeout: float) -> Held:
        command = self._switch + wrap_command(argv, timeout=timeout, env=None)
        process = subprocess.Popen(  # noqa: S603 (an argument list, no shell)
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=START_DIR,
            start_new_session=True,
        )
        return _HeldProcess(process)

    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None:
        # Written by the run user itself, so the file belongs to it.
        self.run(["sh", "-c", scripts.WRITE_FILE, "sh", remote_path, f"{mode:o}"], input=data, timeout=600)

    def put_file(self, local_path: str, remote_path: str) -> None:
        self.put_bytes(Path(local_path).read_bytes(), remote_path, mode=os.stat(local_path).st_mode & 0o777)

    def get_bytes(self, remote_path: str) -> bytes:
        return self.run(["cat", "--", remote_path], timeout=600).stdout

    def close(self) -> None:
        """Nothing is held open between commands."""


class _HeldProcess(Held):
    """A local held command: its stdin is a pipe from the worker, closed when the worker ends, however it ends."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def first_line(self, timeout: float) -> str:
        stdout = self.process.stdout
        assert stdout is not None
        if not select.select([stdout], [], [], timeout)[0]:
            raise CommandTimeout(f"{self.process.args!r} said nothing within {timeout:g}s")
        return stdout.readline().decode("utf-8", "replace").strip()

    def release(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def switch_user_argv(account: str) -> list[str]:
    """A root worker's way into account: setpriv, whose --reset-env leaves the account's HOME, SHELL, USER, LOGNAME, a
    default PATH and TERM, as sudo's env_reset does. runuser (PAM session) did the same switch at twice the cost and
    kept the worker's environment; the local target runs about 20 commands a trial."""
    entry = pwd.getpwnam(account)
    ids = [f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--reset-env"]
    return ["setpriv", *ids, "--"]


def local_run_user() -> str:
    """The account that runs the benchmark clusters, and every other command, on `local`; "" for the worker's own.

    BENCHDASH_LOCAL_USER names it; this is the one place that reads it. A root worker defaults to
    benchdash-clusters (deploy/setup.sh creates it), an account that is neither the store's nor the app's and
    cannot read their passwords; another worker uses its own account unless the variable names another one.
    """
    root = os.geteuid() == 0
    user = os.environ.get("BENCHDASH_LOCAL_USER", DEFAULT_LOCAL_USER if root else "")
    if not root and user in ("", pwd.getpwuid(os.geteuid()).pw_name):
        return ""
    try:
        pwd.getpwnam(user)
    except KeyError:
        raise TransportError(f"the local run user {user!r} does not exist (bash deploy/setup.sh creates it)") from None
    return user
