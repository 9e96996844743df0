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
import subprocess
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import median_rows, timed  # noqa: E402

COLLECT = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
REWRITE = [sys.executable, "tests/rewrite_ahead.py"]
COMPILE = [sys.executable, "-m", "compileall", "-q", "benchdash", "workers"]
# One round, in this order, after the rewritten files are removed.
ROUND = {
    "a worker's collection, nothing rewritten ahead": COLLECT,
    "tests/rewrite_ahead.py": REWRITE,
    "a worker's collection after it": COLLECT,
}


def run(argv: list[str]) -> None:
    """argv in the checkout, as `make test` runs pytest here."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": ""}
    subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)


def remove_rewritten() -> None:
    for pyc in (ROOT / "tests").rglob("__pycache__/*-pytest-*.pyc"):
        pyc.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in ROUND}
    run(COMPILE)
    for _ in range(rounds):
        remove_rewritten()
        for label, argv in ROUND.items():
            times[label].append(timed(partial(run, argv)))
    print(f"{rounds} rounds, taking turns; load average {os.getloadavg()[0]:.1f}")
    print("\n| run | wall s (median) | CPU s (median) |\n| --- | ---: | ---: |")
    print(median_rows(times))


if __name__ == "__main__":
    main()
