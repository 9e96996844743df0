"""A target in memory, for the engine's logic that needs no process: retries, the fence's decisions as the attempt
takes them, a long command's polling, parsing and planning. Files are a dict, and each command is answered by a
function of the test's (exit 0 and no output unless it says otherwise); every command line is kept as the target
would have run it (under its `timeout` watchdog, behind the fence's guard once fenced).

What only a process proves stays on real targets (tests/sshd.py): the background scripts, the fence's own shell,
signals, process groups, SSH. A test that uses this one needs no server, so `make check` runs it.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from workers import background_scripts as scripts
from workers.spec import HostSpec
from workers.transport_base import (
    CommandResult,
    ConnectionLost,
    Held,
    HostUnreachable,
    Transport,
)

FAKE_HOST = HostSpec(name="fake", address="192.0.2.1", port=22, username="bench", work_dir="/srv/bench")


@dataclass(frozen=True)
class Answer:
    """What a command gives back on the fake target."""

    exit_status: int = 0
    stdout: bytes = b""
    stderr: bytes = b""


FENCE_REFUSAL = Answer(scripts.FENCED, stderr=scripts.FENCED_MARK + b" the host works for 7.42, later than 7.41")
WAIT_STILL_RUNS = Answer(scripts.WAIT_TIMED_OUT)


def script_of(argv: Sequence[str]) -> str:
    """The background script an `sh -c SCRIPT` argument list runs ("" for any other command)."""
    return str(argv[2]) if len(argv) > 2 and list(argv[:2]) == ["sh", "-c"] else ""


class FakeTransport(Transport):
    """answer(argv) answers each command (argv as the engine asked it, not wrapped); raising from it is the target's
    error. unreachable_reconnects: how many reconnects raise HostUnreachable before one succeeds."""

    def __init__(
        self,
        answer: Callable[[list[str]], Answer] = lambda argv: Answer(),
        *,
        host: HostSpec = FAKE_HOST,
        unreachable_reconnects: int = 0,
    ) -> None:
        super().__init__(host)
        self.answer = answer
        self.unreachable_reconnects = unreachable_reconnects
        self.files: dict[str, bytes] = {}
        # Each command as the engine asked it, and as the target would have run it (watchdog, fence guard).
        self.asked: list[list[str]] = []
        self.command_lines: list[list[str]] = []
        self.reconnects = 0
        self.closed = False

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 600,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        input: bytes | None = None,  # noqa: A002 (the contract's name)
    ) -> CommandResult:
        command = [str(arg) for arg in argv]
        self.asked.append(command)
        self.command_lines.append(self.command_line(command, timeout=timeout, env=env))
        answer = self.answer(command)
        result = CommandResult(command, answer.exit_status, answer.stdout, answer.stderr, duration_s=0.0)
        return self.finish(result, timeout=timeout, check=check)

    def hold(self, argv: Sequence[str], *, timeout: float) -> Held:
        raise NotImplementedError("the fake target holds no command: a test of hold needs a real one")

    def put_bytes(self, data: bytes, remote_path: str, mode: int = 0o644) -> None:
        self.files[remote_path] = data

    def put_file(self, local_path: str, remote_path: str) -> None:
        with open(local_path, "rb") as source:
            self.files[remote_path] = source.read()

    def get_bytes(self, remote_path: str) -> bytes:
        return self.files[remote_path]

    def close(self) -> None:
        self.closed = True

    def reconnect(self) -> None:
        self.reconnects += 1
        if self.reconnects <= self.unreachable_reconnects:
            raise HostUnreachable(f"cannot connect to {self.host.username}@{self.host.address}: refused")


def lost_once(then: Callable[[], object]) -> Callable[[], object]:
    """An action whose first call loses the connection (a host that froze under it), and whose next calls do then()."""
    calls: list[None] = []

    def action() -> object:
        calls.append(None)
        if len(calls) == 1:
            raise ConnectionLost("the connection stopped answering under the command")
        return then()

    return action
