"""What a pytest worker's collection costs with and without the rewritten test modules that `make test` writes first
(tests/rewrite_ahead.py), taking turns, and what writing them costs.

Usage:  .venv/bin/python bench/collection_rewrite.py [--rounds 5]

Each round runs `pytest --collect-only` as a worker of `make test` collects (PYTHONDONTWRITEBYTECODE set, as on this
machine and CI): once after removing every rewritten file, once after tests/rewrite_ahead.py wrote them; benchdash/
and workers/ are compiled first, as `make test` does. Prints the median wall and CPU time (user + system) of each
in a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLLECT = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
REWRITE = [sys.executable, "tests/rewrite_ahead.py"]
COMPILE = [sys.executable, "-m", "compileall", "-q", "benchdash", "workers"]


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of argv in the checkout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": ""}
    subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def remove_rewritten() -> None:
    for pyc in (ROOT / "tests").rglob("__pycache__/*-pytest-*.pyc"):
        pyc.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    times: dict[str, list[tuple[float, float]]] = {
        "a worker's collection, nothing rewritten ahead": [],
        "tests/rewrite_ahead.py": [],
        "a worker's collection after it": [],
    }
    labels = list(times)
    timed(COMPILE)
    for _ in range(rounds):
        remove_rewritten()
        times[labels[0]].append(timed(COLLECT))
        times[labels[1]].append(timed(REWRITE))
        times[labels[2]].append(timed(COLLECT))
    print(f"{rounds} rounds, taking turns; load average {os.getloadavg()[0]:.1f}")
    print("\n| run | wall s (median) | CPU s (median) |\n| --- | ---: | ---: |")
    for label, runs in times.items():
        wall = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        print(f"| {label} | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
