"""What a pytest worker's collection costs with pytest's plugins autoloaded (every module of their distributions
rewritten for asserts) against the plugins named in pyproject.toml's addopts (only their own modules), taking turns.

Usage:  .venv/bin/python bench/plugin_autoload.py [--rounds 5]

Each round runs `pytest --collect-only` as a worker of `make test` collects (PYTHONDONTWRITEBYTECODE set, the test
modules rewritten ahead as `make test` does): once with the project's addopts, once with addopts overridden to what
they were before the plugins were named. Prints the median wall and CPU time (user + system) of each in a Markdown
table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.collection_rewrite import COLLECT, COMPILE, REWRITE, run  # noqa: E402
from bench.timing import in_turns, median_rows  # noqa: E402

AUTOLOADED = [*COLLECT, "-o", "addopts=-ra --strict-markers"]
ROUND = {
    "plugins autoloaded (before)": AUTOLOADED,
    "plugins named in addopts": COLLECT,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    run(COMPILE)
    run(REWRITE)
    times = in_turns({label: partial(run, argv) for label, argv in ROUND.items()}, rounds)
    print(f"{rounds} rounds, taking turns; load average {os.getloadavg()[0]:.1f}")
    print("\n| a worker's collection | wall s (median) | CPU s (median) |\n| --- | ---: | ---: |")
    print(median_rows(times))


if __name__ == "__main__":
    main()
