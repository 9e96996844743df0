"""What reading a finished background command's outcome costs on the host `local`: one command that prints its exit
status, stdout and stderr (since 044fe15; the wait itself prints them now, bench/background_latency.py) against the
three it took before (the status script, then `cat` of each output), each after the same wait.

Usage (as root, or as a worker's account with its sudoers rule):  .venv/bin/python bench/background_outcome.py
[--rounds 9] [--commands 50]

The two take turns, a round of --commands background commands each, so that the machine's load falls on both alike.
Prints the median wall and CPU time (user + system, of this process and the processes it started) per command, from
its start to its outcome read, in a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import posixpath
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command_table import print_command_table  # noqa: E402
from bench.scratch import local_scratch_dir  # noqa: E402
from bench.timing import in_turns, own_and_children_cpu_s  # noqa: E402
from workers import background_scripts as scripts  # noqa: E402
from workers.local_transport import LocalTransport  # noqa: E402
from workers.spec import HostSpec  # noqa: E402
from workers.transport_base import CommandResult, Transport  # noqa: E402

# The status script as it was before 044fe15: the exit status only; each output was read after it.
STATUS_BEFORE = r"""
cat "$1/$2.rc" 2>/dev/null
touch "$1/$2.out" "$1/$2.err"
"""
COMMAND = ["sh", "-c", "echo out; echo err >&2; exit 3"]


def three_commands(transport: Transport, name: str) -> CommandResult:
    transport.run(["sh", "-c", scripts.WAIT, "sh", transport.run_dir, name, "100"], timeout=70, check=False)
    status = transport.run(["sh", "-c", STATUS_BEFORE, "sh", transport.run_dir, name], timeout=120).text.strip()
    return CommandResult(
        argv=COMMAND,
        exit_status=int(status) if status.lstrip("-").isdigit() else -9,
        stdout=transport.get_bytes(posixpath.join(transport.run_dir, f"{name}.out")),
        stderr=transport.get_bytes(posixpath.join(transport.run_dir, f"{name}.err")),
        duration_s=0.0,
    )


def one_command(transport: Transport, name: str) -> CommandResult:
    return transport.wait_background(name, timeout=10)


def one_round(transport: Transport, read: Callable[[Transport, str], CommandResult], commands: int) -> None:
    """commands background commands, each from its start to its outcome read."""
    for number in range(commands):
        transport.start_background(f"bench{number}", COMMAND)
        result = read(transport, f"bench{number}")
        if (result.exit_status, result.stdout, result.stderr) != (3, b"out\n", b"err\n"):
            sys.exit(f"{read.__name__} read {result}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--commands", type=int, default=50)
    args = parser.parse_args()
    reads = {"status, then cat of each output (before)": three_commands, "one command (the wait, now)": one_command}
    with local_scratch_dir("outcome") as work_dir:
        transport = LocalTransport(HostSpec(name="local", address="", work_dir=work_dir))
        work = {name: partial(one_round, transport, read, args.commands) for name, read in reads.items()}
        measured = in_turns(work, args.rounds, cpu_s=own_and_children_cpu_s, units=args.commands)
    print_command_table("reading the outcome", measured, args.commands)


if __name__ == "__main__":
    main()
