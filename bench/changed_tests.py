"""Tests before and after a change to them: the sum of their durations (pytest --durations=0) and the CPU time of the
pytest run with every process it started, taking turns between an export of an earlier commit and this checkout.

Usage:  .venv/bin/python bench/changed_tests.py BEFORE [--rounds 1] [--pytest-args "-m 'not servers'"] PATH...

BEFORE is a commit; PATH a test file or directory, the same in both. Each round runs pytest on PATH in `git archive
BEFORE`'s tree (in a temporary directory, the tests' ROOT there) and in this checkout, with this checkout's .venv.
On a machine that other work shares, compare the CPU: the durations are wall time, and move with the load. Prints a
Markdown table for docs/TESTS.md.
"""

from __future__ import annotations

import argparse
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DURATION = re.compile(r"^(\d+\.\d+)s (?:setup|call|teardown) ", re.MULTILINE)
OUTCOME = re.compile(r"^(\d+) passed", re.MULTILINE)


def export(commit: str, into: Path) -> None:
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_tests(tree: Path, paths: list[str], pytest_args: list[str]) -> tuple[int, float, float]:
    """(tests passed, sum of their durations, CPU of the run) for paths in tree; fails loudly when a test fails."""
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0", *pytest_args, *paths]
    cpu_before = children_cpu_s()
    done = subprocess.run(argv, cwd=tree, capture_output=True, text=True)
    cpu = children_cpu_s() - cpu_before
    if done.returncode != 0:
        sys.exit(f"pytest failed in {tree}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    passed = OUTCOME.search(done.stdout)
    return int(passed[1]) if passed else 0, sum(float(seconds) for seconds in DURATION.findall(done.stdout)), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pytest-args", default="")
    args = parser.parse_args()
    pytest_args = shlex.split(args.pytest_args)
    runs: dict[str, list[tuple[int, float, float]]] = {args.before: [], "this checkout": []}
    with tempfile.TemporaryDirectory(prefix="benchdash-before-") as before_tree:
        # Enterable by the clusters' account: a tree before a2928e7 ran local commands in the worker's directory.
        Path(before_tree).chmod(0o755)
        export(args.before, Path(before_tree))
        for _ in range(args.rounds):
            runs[args.before].append(run_tests(Path(before_tree), args.paths, pytest_args))
            runs["this checkout"].append(run_tests(ROOT, args.paths, pytest_args))
    print(f"`{' '.join(args.paths)}` {args.pytest_args}, median of {args.rounds} round(s)\n")
    print("| tree | tests | sum of durations, s | CPU of the run, s |\n| --- | ---: | ---: | ---: |")
    for tree, results in runs.items():
        passed = results[0][0]
        durations = statistics.median(result[1] for result in results)
        cpu = statistics.median(result[2] for result in results)
        print(f"| {tree} | {passed} | {durations:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
