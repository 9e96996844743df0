"""How long a benchdash process takes to start: `manage.py check` (Django set up, every app, the URLs), and the
import of the Celery tasks a worker loads, here and at an earlier commit, taking turns.

Usage:  .venv/bin/python bench/process_start.py [--baseline REV] [--runs 9]

Every worker, beat, web server worker and manage.py command pays this start; the queue tests start hundreds of
them. The baseline is checked out as a git worktree in a temporary directory (removed at the end) and run with this
checkout's .venv and settings, both compiled first as `make test` compiles them (where PYTHONDONTWRITEBYTECODE is
set, the baseline's modules were compiled again at every start); the two take turns, so that the machine's load falls
on both alike. Prints the median wall time and CPU time (user + system) of each, in a Markdown table for
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import in_turns, medians  # noqa: E402

COMPILE = [sys.executable, "-m", "compileall", "-q", "benchdash", "workers"]
COMMANDS = {
    "manage.py check": ["manage.py", "check"],
    "a worker's tasks (import benchdash.queue.tasks)": [
        "-c",
        "import django; django.setup(); import benchdash.queue.tasks",
    ],
}


def run_in(checkout: Path, argv: list[str]) -> None:
    """The checkout's Python on argv."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "benchdash.settings", "PYTHONPATH": str(checkout)}
    subprocess.run([sys.executable, *argv], cwd=checkout, env=env, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD~1", help="the commit to compare with (default: HEAD~1)")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        # As root, manage.py runs as var/'s owner (benchdash/var_owner.py), who must enter the baseline's directory.
        os.chmod(scratch, 0o755)  # noqa: S103
        baseline = Path(scratch, "baseline")
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(baseline), args.baseline], cwd=ROOT, check=True)
        try:
            for name in ("var", ".env"):
                if (ROOT / name).exists():
                    (baseline / name).symlink_to(ROOT / name)
            # As `make test` compiles this checkout's: where PYTHONDONTWRITEBYTECODE is set, nothing else would.
            for checkout in (baseline, ROOT):
                subprocess.run(COMPILE, cwd=checkout, check=True, stdout=subprocess.DEVNULL)
            report(args, {"baseline": baseline, "this checkout": ROOT})
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT, check=True)


def report(args: argparse.Namespace, checkouts: dict[str, Path]) -> None:
    print(f"baseline {args.baseline}, {args.runs} runs each, taking turns; load {os.getloadavg()}")
    print("\n| process | checkout | wall s (median) | CPU s (median) |\n| --- | --- | ---: | ---: |")
    for name, argv in COMMANDS.items():
        times = in_turns({label: partial(run_in, checkout, argv) for label, checkout in checkouts.items()}, args.runs)
        for label, runs in times.items():
            wall, cpu = medians(runs)
            print(f"| {name} | {label} | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
