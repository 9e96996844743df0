"""What a trial's questions about its build cost on the host `local`: six commands as before (does postgres exist,
`postgres -V`, do psql and pgbench exist, `pg_config --configure`, the server's symbols) against the two of now (does
postgres exist, then workers.builds.probe_build, one command that answers the rest).

Usage (as root, or as a worker's account with its sudoers rule):  .venv/bin/python bench/build_probe.py
[--rounds 9] [--questions 20] [--bin-dir /usr/lib/postgresql/15/bin]

Every trial asks them of its DB host's build once (more where a duet or a separate pgbench host adds builds), and over
SSH each command is a round trip and a session on the host being measured. The two take turns, a round of
--questions sets each, so that the machine's load falls on both alike. Prints the median wall and CPU time (user +
system, of this process and the processes it waited for) per set, asked one command after another, in a Markdown table
for docs/BENCHMARKS.md. A trial asked three of the six beside other steps (threads), so its wall saved is less than
the table's; its CPU saved is the table's.
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
from bench.timing import in_turns, own_and_children_cpu_s  # noqa: E402
from workers import builds  # noqa: E402
from workers.local_transport import LocalTransport  # noqa: E402
from workers.spec import HostSpec  # noqa: E402


def questions_before(transport: LocalTransport, bin_dir: str) -> None:
    postgres = posixpath.join(bin_dir, "postgres")
    transport.exists(postgres)
    transport.run([postgres, "-V"], timeout=60)
    transport.exists(posixpath.join(bin_dir, "psql"))
    transport.exists(posixpath.join(bin_dir, "pgbench"))
    transport.run([posixpath.join(bin_dir, "pg_config"), "--configure"], check=False, timeout=60)
    symbols = "bin=$1\n" + builds._SYMBOLS_SECTION  # noqa: SLF001 (its own command, as before the probe)
    transport.run(["sh", "-c", symbols, "sh", bin_dir], check=False, timeout=60)


def questions_now(transport: LocalTransport, bin_dir: str) -> None:
    transport.exists(posixpath.join(bin_dir, "postgres"))
    builds.probe_build(transport, bin_dir, posixpath.join(posixpath.dirname(bin_dir), "lib"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--bin-dir", default="/usr/lib/postgresql/15/bin")
    args = parser.parse_args()
    transport = LocalTransport(HostSpec(name="local", address="", work_dir="/tmp"))
    ways = {
        "six commands (before)": questions_before,
        "does postgres exist, then the probe (now)": questions_now,
    }
    work = {name: partial(ask_times, ask, transport, args.bin_dir, args.questions) for name, ask in ways.items()}
    measured = in_turns(work, args.rounds, cpu_s=own_and_children_cpu_s, units=args.questions)
    print_command_table(f"a trial's questions about {args.bin_dir}", measured, args.questions, unit="set")


def ask_times(ask: Callable[[LocalTransport, str], None], transport: LocalTransport, bin_dir: str, times: int) -> None:
    for _ in range(times):
        ask(transport, bin_dir)


if __name__ == "__main__":
    main()
