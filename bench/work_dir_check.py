"""What the check of a private path costs on the host `local` (workers/work_dir.py, before every trial's use of its
work dir and of an installed build's bin dir): a `stat` for each entry met on the path, each in a subshell of its own,
as before, against one `stat` for them all (now).

Usage (as root, or as a worker's account with its sudoers rule):  .venv/bin/python bench/work_dir_check.py
[--rounds 9] [--checks 20] [--path /usr/lib/postgresql/15/bin]

The two take turns, a round of --checks checks each, so that the machine's load falls on both alike. Prints the
median wall and CPU time (user + system, of this process and the processes it waited for) a check, in a Markdown
table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command_table import print_command_table  # noqa: E402
from bench.timing import in_turns, own_and_children_cpu_s  # noqa: E402
from workers import work_dir  # noqa: E402
from workers.local_transport import LocalTransport  # noqa: E402
from workers.spec import HostSpec  # noqa: E402

# The script as it was: each entry read by its own stat, in a command substitution (a subshell) of its own.
CHECK_BEFORE = (
    work_dir._CHECK_SCRIPT.replace(  # noqa: SLF001
        "set -- /\n", "entry() { stat -c '%u %f %F|%n' -- \"$1\"; }\nmet=$(entry /) || exit 4\n"
    )
    .replace('  set -- "$@" "$current"\n', '  met="$met\n$(entry "$current")" || exit 4\n')
    .replace(
        'stat -c \'%u %f %F|%n\' -- "${resolved:-/}" "$@" || exit 4\n',
        'entry "${resolved:-/}" || exit 4\nprintf \'%s\\n\' "$met"\n',
    )
)


def check(script: str, transport: LocalTransport, path: str, times: int) -> None:
    for _ in range(times):
        result = transport.run(["sh", "-c", script, "sh", "", "files", path], timeout=60)
        work_dir.parse_entries(result.text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--checks", type=int, default=20)
    parser.add_argument("--path", default="/usr/lib/postgresql/15/bin")
    args = parser.parse_args()
    if CHECK_BEFORE == work_dir._CHECK_SCRIPT:  # noqa: SLF001
        sys.exit("the script of before could not be made from today's")
    transport = LocalTransport(HostSpec(name="local", address="", work_dir="/tmp"))
    scripts = {"a stat for each entry (before)": CHECK_BEFORE, "one stat for them all (now)": work_dir._CHECK_SCRIPT}  # noqa: SLF001
    outputs = {
        name: transport.run(["sh", "-c", script, "sh", "", "files", args.path]).text for name, script in scripts.items()
    }
    if len(set(outputs.values())) != 1:
        sys.exit(f"the two scripts differ in what they print: {outputs}")
    work = {name: partial(check, script, transport, args.path, args.checks) for name, script in scripts.items()}
    measured = in_turns(work, args.rounds, cpu_s=own_and_children_cpu_s, units=args.checks)
    print_command_table(f"the check of {args.path} and its files", measured, args.checks, unit="check")


if __name__ == "__main__":
    main()
