"""Change-point detection on 1,000 points: the time the study-end refresh spends finding changes, against the
permutation-tested E-divisive (Matteson and James, as signal-processing-algorithms runs it) as the baseline.

Usage:  .venv/bin/python bench/change_points.py [--points 1000] [--repeat 5] [--seed 3] [--short 1000] [--store]

Series (1% noise): one step of 8% in the middle, noise only, and a realistic mix of short series (a 40-version
index rising 1 point a version, 60 minor series of 10 minors x 3 runs with a 5% step: 1,840 points in all).
Prints a Markdown table of the best of --repeat wall-clock times and the changes found.

Then the false changes and the found steps on short series (--short of each, 0 to skip): noise-only series of 14
points at 1.5% noise, and series of 14 points with a 5% step after the 7th; how many series get any change, and how
many get the step (a fall of over 3% within one point of it), by the permutation E-divisive (the baseline), by
benchdash's detection before its short-series guards (p < MAX_PVALUE, no minimum segment), with the minimum segment
only, and with both (its defaults).

With --store it also times what a study's end runs (`changes_refresh`: read every series from the store, find
the changes, store them) on a fresh database `benchdash_bench_changes`: first empty, then holding one minor series
of 10 minors x 4 client levels x 25 runs (1,000 points, a 6% step at the 7th minor).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from otava.analysis import compute_change_points_orig  # noqa: E402
from servers import fresh_store  # noqa: E402

from benchdash.changes.detection import MAX_PVALUE, MIN_SEGMENT, SHORT_MAX_PVALUE, find_changes  # noqa: E402

SHORT_POINTS, SHORT_NOISE, SHORT_STEP_AT, SHORT_STEP = 14, 0.015, 7, 0.05


def noisy(levels: list[float], rng: random.Random, noise: float = 0.01) -> list[float]:
    return [level * (1 + rng.gauss(0, noise)) for level in levels]


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
    parser.add_argument("--short", type=int, default=1000)
    parser.add_argument("--store", action="store_true")
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
    if args.short:
        short_series(args.short, rng)
    if args.store:
        store_refresh(args.repeat, rng)


def short_series(count: int, rng: random.Random) -> None:
    """False changes on noise-only series and found steps, by each detector, on the same series."""
    flat = [noisy([100.0] * SHORT_POINTS, rng, SHORT_NOISE) for _ in range(count)]
    levels = [100.0] * SHORT_STEP_AT + [100.0 * (1 - SHORT_STEP)] * (SHORT_POINTS - SHORT_STEP_AT)
    stepped = [noisy(levels, rng, SHORT_NOISE) for _ in range(count)]
    labels = [str(position) for position in range(SHORT_POINTS)]
    detectors: dict[str, Callable[[list[float]], list[tuple[int, float]]]] = {
        "permutation E-divisive (baseline)": _permutation,
        f"benchdash before (p < {MAX_PVALUE:g}, no minimum segment)": lambda values: _ours(
            values, labels, MAX_PVALUE, 1
        ),
        f"benchdash, minimum segment {MIN_SEGMENT} only": lambda values: _ours(values, labels, MAX_PVALUE, MIN_SEGMENT),
        f"benchdash now (p < {SHORT_MAX_PVALUE:g}, minimum segment {MIN_SEGMENT})": lambda values: _ours(
            values, labels
        ),
    }
    print()
    print(
        f"| detector ({count} series of {SHORT_POINTS} points, {100 * SHORT_NOISE:g}% noise) | noise only: series "
        f"with a change | {100 * SHORT_STEP:g}% step: step found | step: series with another change | time |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, detect in detectors.items():
        start = time.perf_counter()
        false = sum(1 for values in flat if detect(values))
        found = [detect(values) for values in stepped]
        hits = sum(1 for changes in found if any(_is_the_step(change) for change in changes))
        other = sum(1 for changes in found if any(not _is_the_step(change) for change in changes))
        print(f"| {name} | {false} | {hits} | {other} | {time.perf_counter() - start:.1f} s |")


def _permutation(values: list[float]) -> list[tuple[int, float]]:
    """Its changes' sizes from the means of the segments on either side (its statistics hold no means)."""
    found, _weak = compute_change_points_orig(values, MAX_PVALUE, 1)
    bounds = [0, *(int(point.index) for point in found), len(values)]
    return [
        (
            bounds[number],
            statistics.fmean(values[bounds[number] : bounds[number + 1]])
            / statistics.fmean(values[bounds[number - 1] : bounds[number]])
            - 1,
        )
        for number in range(1, len(bounds) - 1)
    ]


def _ours(
    values: list[float], labels: list[str], max_pvalue: float | None = None, min_segment: int = MIN_SEGMENT
) -> list[tuple[int, float]]:
    found = find_changes(values, labels, max_pvalue=max_pvalue, min_segment=min_segment)
    return [(change.index, change.size) for change in found]


def _is_the_step(change: tuple[int, float]) -> bool:
    index, size = change
    return abs(index - SHORT_STEP_AT) <= 1 and size < -0.03


def store_refresh(repeat: int, rng: random.Random) -> None:
    """changes_refresh on an empty store, then on one holding a 1,000-point minor series."""
    fresh_store("benchdash_bench_changes", 12)
    os.environ.update(DEBUG="false", SECRET_KEY="bench-only-not-a-secret", LOG_LEVEL="WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    from benchdash.changes.refresh import changes_refresh

    call_command("migrate", verbosity=0)
    empty, _found = best_of(repeat, changes_refresh)
    _fill_minor_series(rng)
    first, found = best_of(1, changes_refresh)
    again, _found = best_of(repeat, changes_refresh)
    print()
    print("| store | points | changes_refresh | changes |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| empty | 0 | {empty:.3f} s | 0 |")
    print(f"| one minor series, first refresh (inserts) | 1000 | {first:.3f} s | {found} |")
    print(f"| the same, refreshed again (updates) | 1000 | {again:.3f} s | {found} |")


def _fill_minor_series(rng: random.Random) -> None:
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario, Study, Trial
    from benchdash.studies.results.store import points_refresh

    host = Host.objects.create(name="bench-db", address="192.0.2.10")
    scenario = Scenario.objects.create(slug="reference", name="reference", builtin="select-only")
    builds = [
        Build.objects.create(
            name=f"PostgreSQL 17.{minor}", version=f"17.{minor}", kind="installed", bin_dir="/usr/lib/postgresql/17/bin"
        )
        for minor in range(10)
    ]
    study = Study.objects.create(
        title="17.0..17.9", year=2026, status="done", db_host=host, baseline=builds[0], client_levels=[1, 8, 16, 32]
    )
    trials = [
        Trial(
            study=study,
            build=build,
            scenario=scenario,
            host=host,
            clients=clients,
            repetition=run + 1,
            status=Trial.Status.SUCCEEDED,
            tps=rng.gauss(1000.0 * (0.94 if number >= 6 else 1.0), 10.0),
        )
        for number, build in enumerate(builds)
        for clients in (1, 8, 16, 32)
        for run in range(25)
    ]
    Trial.objects.bulk_create(trials)
    points_refresh(study_id=study.pk)


if __name__ == "__main__":
    main()
