"""Change-point detection on 1,000 points: the time the study-end refresh spends finding changes, against the
permutation-tested E-divisive (Matteson and James, as signal-processing-algorithms runs it) as the baseline.

Usage:  .venv/bin/python bench/change_points.py [--points 1000] [--repeat 5] [--seed 3]

Series (1% noise): one step of 8% in the middle, noise only, and a realistic mix of short series (a 40-version
index rising 1 point a version, 60 minor series of 10 minors x 3 runs with a 5% step: 1,840 points in all).
Prints a Markdown table of the best of --repeat wall-clock times and the changes found.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from otava.analysis import compute_change_points_orig  # noqa: E402

from benchdash.changes.detection import MAX_PVALUE, find_changes  # noqa: E402


def noisy(levels: list[float], rng: random.Random) -> list[float]:
    return [level * (1 + rng.gauss(0, 0.01)) for level in levels]


def best_of(repeat: int, work: Callable[[], object]) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    half = args.points // 2
    series = {
        "one 8% step": noisy([100.0] * half + [92.0] * (args.points - half), rng),
        "noise only": noisy([100.0] * args.points, rng),
    }
    mix = [noisy([100.0 + version for version in range(40)], rng)]
    mix += [noisy([100.0] * 15 + [95.0] * 15, rng) for _ in range(60)]
    print("| series | points | t-test E-divisive (benchdash) | changes | permutation E-divisive | changes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, values in series.items():
        labels = [str(position) for position in range(len(values))]
        ours, found = best_of(args.repeat, lambda values=values, labels=labels: find_changes(values, labels))
        theirs, (perm, _weak) = best_of(1, lambda values=values: compute_change_points_orig(values, MAX_PVALUE, 1))
        print(f"| {name} | {len(values)} | {ours:.3f} s | {len(found)} | {theirs:.3f} s | {len(perm)} |")
    total = sum(len(values) for values in mix)
    ours, found_lists = best_of(args.repeat, lambda: [find_changes(v, [str(i) for i in range(len(v))]) for v in mix])
    print(f"| 61 series (an index, 60 minor series) | {total} | {ours:.3f} s | {sum(map(len, found_lists))} | - | - |")


if __name__ == "__main__":
    main()
