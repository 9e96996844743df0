"""What a lock costs: installing it into a new .venv, as `make test` (the development lock) or `make run` (production's,
`--lock requirements.txt`) does on a fresh clone (deploy/lib.sh: `uv pip sync --compile-bytecode --require-hashes`),
and a benchdash process's start in that .venv (Django set up, the Celery app imported: what every worker, beat, web
server worker and manage.py command pays), for the lock here and at an earlier commit, taking turns.

Usage:  .venv/bin/python bench/lock_install.py [--baseline REV] [--rounds 3] [--starts 5] [--lock requirements.txt]

uv's cache is warm for both (the packages this machine has installed before), as on CI's machine: what is left is
linking the files in and compiling every module to bytecode, which grows with what the lock holds. A start reads the
installed packages' metadata (Celery and kombu look for entry points), so it grows with the lock too. Prints the median
wall and CPU time (user + system) of each install, the median of its starts, and the size of the .venv, in a Markdown
table for docs/BENCHMARKS.md.
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

from bench.timing import medians, timed  # noqa: E402

UV = str(ROOT / ".venv" / "bin" / "uv")
START = "import django; django.setup(); import benchdash.celery"


def install(lock: Path, venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    sync = [UV, "pip", "sync", "-q", "--python", str(venv / "bin" / "python"), "--compile-bytecode"]
    subprocess.run([*sync, "--require-hashes", str(lock)], check=True)


def start(venv: Path) -> None:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "benchdash.settings"}
    subprocess.run([str(venv / "bin" / "python"), "-c", START], cwd=ROOT, env=environment, check=True)


def size_mb(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD~1", help="the commit whose lock to compare with (default: HEAD~1)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--starts", type=int, default=5, help="process starts timed in each round's .venv")
    parser.add_argument("--lock", default="requirements-dev.txt", help="which lock (default: requirements-dev.txt)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        baseline = Path(scratch, f"baseline-{args.lock}")
        shown = subprocess.run(["git", "show", f"{args.baseline}:{args.lock}"], cwd=ROOT, capture_output=True)
        baseline.write_bytes(shown.stdout)
        locks = {f"{args.baseline}'s {args.lock}": baseline, f"this checkout's {args.lock}": ROOT / args.lock}
        installs: dict[str, list[tuple[float, float]]] = {label: [] for label in locks}
        starts: dict[str, list[tuple[float, float]]] = {label: [] for label in locks}
        sizes: dict[str, float] = {}
        venv = Path(scratch, "venv")
        for _ in range(args.rounds):
            for label, lock in locks.items():
                installs[label].append(timed(partial(install, lock, venv)))
                starts[label] += [timed(partial(start, venv)) for _ in range(args.starts)]
                sizes[label] = size_mb(venv)
                subprocess.run(["rm", "-rf", str(venv)], check=True)
    print(f"{args.rounds} rounds, taking turns, {args.starts} starts a round; load average {os.getloadavg()[0]:.1f}")
    print("\n| lock | install: wall s | install: CPU s | a start: wall s | a start: CPU s | .venv MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label in locks:
        (wall, cpu), (start_wall, start_cpu) = medians(installs[label]), medians(starts[label])
        print(f"| {label} | {wall:.1f} | {cpu:.1f} | {start_wall:.2f} | {start_cpu:.2f} | {sizes[label]:.0f} |")


if __name__ == "__main__":
    main()
