"""How long a short background command takes on the host `local`, from its start to its outcome read: the launch and
the wait as they were before (the launch looked for the PID file every 50 ms, the wait every 100 ms, and the outcome
was a command of its own) against today's (every 10 ms; every 20 ms for the wait's first tenth of a second, its
outcome printed by the wait itself).

Usage (as root, or as a worker's account with its sudoers rule):  .venv/bin/python bench/background_latency.py
[--rounds 9] [--commands 20]

A trial's long steps run as background commands whenever the attempt may be cancelled (Transport.run_long): a
server's start and stop, a copy of data, prewarm, the table health readings, pgbench itself. The two take turns, a
round of --commands background commands each (`sleep 0.1`, as short as most of those steps on test data), so that
the machine's load falls on both alike. Prints the median wall and CPU time (user + system, of this process and the
processes it waited for) per command, in a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command_table import print_command_table  # noqa: E402
from bench.scratch import local_scratch_dir  # noqa: E402
from bench.timing import in_turns, own_and_children_cpu_s  # noqa: E402
from workers import background_scripts as scripts  # noqa: E402
from workers.local_transport import LocalTransport  # noqa: E402
from workers.spec import HostSpec  # noqa: E402
from workers.transport_base import CommandResult, env_command  # noqa: E402

COMMAND = ["sleep", "0.1"]

# The scripts as they were before: the launch's look every 50 ms, the wait's every 100 ms and its outcome apart.
LAUNCH_BEFORE = scripts.LAUNCH.replace("-gt 1000 ]", "-gt 200 ]").replace("sleep 0.01", "sleep 0.05")
WAIT_BEFORE = (
    scripts._ALIVE  # noqa: SLF001
    + r"""
run=$1 name=$2 ticks=$3
i=0
while [ ! -f "$run/$name.rc" ]; do
  pgid= start=
  { read -r pgid start < "$run/$name.pid"; } 2>/dev/null
  if [ -z "$pgid" ] || ! kill -s 0 -- "-$pgid" 2>/dev/null \
    || { [ $((i % 10)) -eq 0 ] && ! alive "$pgid" "$start"; }; then
    [ -f "$run/$name.rc" ] && exit 0
    exit 4
  fi
  i=$((i + 1))
  [ "$i" -gt "$ticks" ] && exit 5
  sleep 0.1
done
exit 0
"""
)
OUTCOME_BEFORE = scripts._OUTCOME + 'outcome "$1" "$2"\n'  # noqa: SLF001


class TransportBefore(LocalTransport):
    """The local target with the launch and the wait of before."""

    def start_background(
        self, name: str, argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> None:
        launch = ["sh", "-c", LAUNCH_BEFORE, "sh", scripts.WRAPPER, self.run_dir, name, cwd or ""]
        self.run([*launch, *env_command(argv, env)], timeout=60)

    def wait_background(self, name: str, timeout: float) -> CommandResult:
        ticks = str(max(1, int(timeout * 10)))
        self.run(["sh", "-c", WAIT_BEFORE, "sh", self.run_dir, name, ticks], timeout=timeout + 60, check=False)
        outcome = self.run(["sh", "-c", OUTCOME_BEFORE, "sh", self.run_dir, name], timeout=120).stdout
        head, _, _ = outcome.partition(b"\n")
        return CommandResult(list(COMMAND), int(head.split()[0]), b"", b"", 0.0)


def one_round(transport: LocalTransport, commands: int) -> None:
    """commands background commands, each from its start to its outcome read."""
    for number in range(commands):
        transport.start_background(f"bench{number}", COMMAND)
        result = transport.wait_background(f"bench{number}", timeout=10)
        if result.exit_status != 0:
            sys.exit(f"{type(transport).__name__} read {result}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--commands", type=int, default=20)
    args = parser.parse_args()
    with local_scratch_dir("latency") as work_dir:
        host = HostSpec(name="local", address="", work_dir=work_dir)
        transports = {
            "launch every 50 ms, wait every 100 ms, outcome apart (before)": TransportBefore(host),
            "launch every 10 ms, wait every 20 ms at first, outcome with the wait (now)": LocalTransport(host),
        }
        work = {name: partial(one_round, transport, args.commands) for name, transport in transports.items()}
        measured = in_turns(work, args.rounds, cpu_s=own_and_children_cpu_s, units=args.commands)
    print_command_table(f"`{' '.join(COMMAND)}` in the background, start to outcome", measured, args.commands)


if __name__ == "__main__":
    main()
