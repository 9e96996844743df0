"""Each test's CPU, as a pytest plugin: the pytest worker's own (user + system) and that of the child processes it
reaped during the test, with the test's wall time, one TSV per pytest-xdist worker; then the sums by module.

Usage:  BENCH_TEST_CPU=/tmp/cpu .venv/bin/python -m pytest -p bench.cpu_per_test -n 5 --dist worksteal [PATH...]
        .venv/bin/python bench/cpu_per_test.py /tmp/cpu [--most 30]

The run is bound by the CPU on two cores, where the durations are wall time and move with the load: the sums say where
the CPU goes. A child's CPU counts where it was reaped, not where it ran (a worker started by one test and stopped by
a later one counts in the later one), and daemons (the targets' postgres, sshd's sessions) count nowhere.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROWS: list[str] = []


def cpu_s(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, children, start = cpu_s(resource.RUSAGE_SELF), cpu_s(resource.RUSAGE_CHILDREN), time.monotonic()
    yield
    own, children = cpu_s(resource.RUSAGE_SELF) - own, cpu_s(resource.RUSAGE_CHILDREN) - children
    ROWS.append(f"{item.nodeid}\t{time.monotonic() - start:.3f}\t{own:.3f}\t{children:.3f}\n")


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get("BENCH_TEST_CPU")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(folder, f"{worker}.tsv").write_text("".join(ROWS))


def by_module(folder: Path) -> dict[str, list[float]]:
    """Per module: tests, wall, own CPU, children's CPU."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for path in folder.glob("*.tsv"):
        for line in path.read_text().splitlines():
            nodeid, wall, own, children = line.split("\t")
            row = sums[nodeid.split("::")[0]]
            row[0] += 1
            for index, value in enumerate((wall, own, children), start=1):
                row[index] += float(value)
    return sums


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--most", type=int, default=30)
    args = parser.parse_args()
    sums = by_module(args.folder)
    print("| module | tests | wall, s | own CPU, s | children's CPU, s |\n| --- | ---: | ---: | ---: | ---: |")
    for module, (tests, wall, own, children) in sorted(sums.items(), key=lambda item: -item[1][2])[: args.most]:
        print(f"| {module} | {tests:.0f} | {wall:.1f} | {own:.1f} | {children:.1f} |")


if __name__ == "__main__":
    main()
