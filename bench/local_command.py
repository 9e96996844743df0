"""What one command on the host `local` costs a root worker: the switch to the clusters' account with setpriv (what
LocalTransport runs) against runuser (what it ran before 5a6ca78), each around the same `timeout` wrapper.

Usage (as root):  .venv/bin/python bench/local_command.py [--rounds 9] [--commands 100]

The two take turns, a round of --commands each, so that the machine's load falls on both alike. Prints the median
wall and CPU time (user + system, of the processes started) per command, in a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command_table import print_command_table  # noqa: E402
from bench.timing import in_turns  # noqa: E402
from workers.local_transport import DEFAULT_LOCAL_USER, switch_user_argv  # noqa: E402
from workers.transport_base import wrap_command  # noqa: E402


def switches(account: str) -> dict[str, list[str]]:
    return {"runuser -u": ["runuser", "-u", account, "--"], "setpriv --reset-env": switch_user_argv(account)}


def one_round(prefix: list[str], commands: int) -> None:
    """`commands` runs of `true` behind prefix and the timeout wrapper."""
    argv = prefix + wrap_command(["true"], timeout=60, env=None)
    for _ in range(commands):
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--commands", type=int, default=100)
    parser.add_argument("--account", default=DEFAULT_LOCAL_USER)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run it as root: a worker that is not root reaches the clusters' account with sudo, unchanged")
    work = {name: partial(one_round, prefix, args.commands) for name, prefix in switches(args.account).items()}
    measured = in_turns(work, args.rounds, units=args.commands)
    print_command_table("switch", measured, args.commands)


if __name__ == "__main__":
    main()
