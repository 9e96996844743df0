"""What installing the development lock into a new .venv costs, as `make test` does on a fresh clone (deploy/lib.sh:
`uv pip sync --compile-bytecode --require-hashes`), for requirements-dev.txt here and at an earlier commit, taking
turns.

Usage:  .venv/bin/python bench/dev_lock_install.py [--baseline REV] [--rounds 3]

uv's cache is warm for both (the packages this machine has installed before), as on CI's machine: what is left is
linking the files in and compiling every module to bytecode, which grows with what the lock holds. Prints the median
wall and CPU time (user + system) of each, and the size of the .venv, in a Markdown table for docs/BENCHMARKS.md.
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


def install(lock: Path, venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    sync = [UV, "pip", "sync", "-q", "--python", str(venv / "bin" / "python"), "--compile-bytecode"]
    subprocess.run([*sync, "--require-hashes", str(lock)], check=True)


def size_mb(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD~1", help="the commit whose lock to compare with (default: HEAD~1)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        baseline = Path(scratch, "baseline-requirements-dev.txt")
        shown = subprocess.run(["git", "show", f"{args.baseline}:requirements-dev.txt"], cwd=ROOT, capture_output=True)
        baseline.write_bytes(shown.stdout)
        locks = {f"{args.baseline}'s lock": baseline, "this checkout's lock": ROOT / "requirements-dev.txt"}
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in locks}
        sizes: dict[str, float] = {}
        venv = Path(scratch, "venv")
        for _ in range(args.rounds):
            for label, lock in locks.items():
                times[label].append(timed(partial(install, lock, venv)))
                sizes[label] = size_mb(venv)
                subprocess.run(["rm", "-rf", str(venv)], check=True)
    print(f"{args.rounds} rounds, taking turns; load average {os.getloadavg()[0]:.1f}")
    print("\n| lock | wall s (median) | CPU s (median) | .venv MB |\n| --- | ---: | ---: | ---: |")
    for label, runs in times.items():
        wall, cpu = medians(runs)
        print(f"| {label} | {wall:.1f} | {cpu:.1f} | {sizes[label]:.0f} |")


if __name__ == "__main__":
    main()
