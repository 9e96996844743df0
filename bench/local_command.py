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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command_table import print_command_table  # noqa: E402
from bench.timing import timed  # noqa: E402
from workers.local_transport import DEFAULT_LOCAL_USER, switch_user_argv  # noqa: E402
from workers.transport_base import wrap_command  # noqa: E402


def switches(account: str) -> dict[str, list[str]]:
    return {"runuser -u": ["runuser", "-u", account, "--"], "setpriv --reset-env": switch_user_argv(account)}


def one_round(prefix: list[str], commands: int) -> tuple[float, float]:
    """Wall and CPU seconds per command, over `commands` runs of `true` behind prefix and the timeout wrapper."""
    argv = prefix + wrap_command(["true"], timeout=60, env=None)

    def run_all() -> None:
        for _ in range(commands):
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, capture_output=True)

    wall, cpu = timed(run_all)
    return wall / commands, cpu / commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--commands", type=int, default=100)
    parser.add_argument("--account", default=DEFAULT_LOCAL_USER)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run it as root: a worker that is not root reaches the clusters' account with sudo, unchanged")
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in switches(args.account)}
    for _ in range(args.rounds):
        for name, prefix in switches(args.account).items():
            measured[name].append(one_round(prefix, args.commands))
    print_command_table("switch", measured, args.commands)


if __name__ == "__main__":
    main()
