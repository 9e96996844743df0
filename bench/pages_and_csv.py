"""Server time of the trends page, a study page and the CSV downloads, empty store vs 1,000,000 trials.

Usage:  .venv/bin/python bench/pages_and_csv.py [--trials 1000000] [--studies 40] [--requests 20]

Creates (drops first) the database `benchdash_bench` on the store cluster, migrates it, measures every
URL on an almost empty store (one study, no trials), fills it with COPY, refreshes every study's points
(`points_refresh`, what `manage.py refresh_points` does after a bulk load), times the refresh of one
point (what each trial_finish adds) and of a whole study, measures again, and prints a Markdown table
for docs/BENCHMARKS.md. Requests go through Django's test Client in-process, so the
figures are server time without network or browser.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from servers import fresh_store

BENCH_DB = "benchdash_bench"
REDIS_DB = 11
VERSIONS = ["9.2.4", "9.3.5", "9.4.1", "9.5.3", "9.6.2", "10.4", "11.2", "12.6", "13.4", "14.0", "15.3", "16.1", "17.0"]
CLIENT_LEVELS = [1, 16, 32, 64, 96, 128, 160, 192, 288, 432]
SCENARIOS = [("reference", "参照系 (reference)"), ("update", "更新系 (update)")]


def main() -> None:
    args = _arguments()
    _django_setup(args.database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    study_ids = _fill_inventory(args.studies)
    empty = _measure_all(study_ids[0], args.requests)
    started = time.perf_counter()
    _fill_trials(study_ids, args.trials)
    fill_s = time.perf_counter() - started
    refresh = _refresh_points(study_ids, args.requests)
    full = _measure_all(study_ids[0], args.requests)
    memory = _streaming_memory(study_ids[0])
    _print_report(args, empty, full, memory, fill_s, refresh)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--studies", type=int, default=40)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--database", default=BENCH_DB)
    return parser.parse_args()


def _django_setup(database: str) -> None:
    fresh_store(database, REDIS_DB)
    # DEBUG off: no query log growing with every request, as in production.
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    os.environ["BENCHDASH_PUBLIC_READ"] = "true"
    os.environ["LOG_LEVEL"] = "WARNING"
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import django

    django.setup()


def _fill_inventory(study_count: int) -> list[int]:
    """Builds, two scenarios, a host and the studies: study n compares two consecutive versions."""
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario, Study

    host = Host.objects.create(name="bench-db", address="192.0.2.10")
    builds = [Build.objects.create(name=f"PostgreSQL {v}", version=v, kind=Build.Kind.PUBLISHED) for v in VERSIONS]
    scenarios = [Scenario.objects.create(slug=slug, name=name, builtin="select-only") for slug, name in SCENARIOS]
    study_ids = []
    for number in range(study_count):
        older, newer = builds[number % (len(builds) - 1)], builds[number % (len(builds) - 1) + 1]
        study = Study.objects.create(
            title=f"第{number + 1}回 定点観測 {older.version} vs {newer.version}",
            year=2012 + number,
            status=Study.Status.DONE,
            db_host=host,
            client_host=host,
            baseline=older,
            client_levels=CLIENT_LEVELS,
        )
        study.builds.set([older, newer])
        study.scenarios.set(scenarios)
        study_ids.append(study.id)
    return study_ids


def _fill_trials(study_ids: list[int], trial_count: int) -> None:
    """COPY the trials in: every study gets the same share, spread over its build x scenario x clients."""
    from django.db import connection

    from benchdash.studies.models import Study, Trial

    columns, defaults = _trial_columns(Trial)
    per_study = trial_count // len(study_ids)
    rng = random.Random(1)
    # Read the studies before COPY starts: the connection serves nothing else while copying.
    studies = list(Study.objects.filter(id__in=study_ids).prefetch_related("builds", "scenarios"))
    statement = f"COPY studies_trial ({', '.join(columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for study in studies:
            for values in _study_trials(study, per_study, rng):
                copy.write_row([values.get(column, defaults[column]) for column in columns])
    with connection.cursor() as cursor:
        # What autovacuum does soon after a bulk load: statistics, and the visibility map that lets
        # the median aggregates read trial_median_idx alone (index-only scan).
        cursor.execute("VACUUM ANALYZE studies_trial")


def _trial_columns(trial_model: type) -> tuple[list[str], dict[str, object]]:
    """Every column but id, with the model's default for those the filler leaves out."""
    columns, defaults = [], {}
    for field in trial_model._meta.concrete_fields:
        if field.primary_key:
            continue
        columns.append(field.column)
        default = field.get_default()
        defaults[field.column] = json.dumps(default) if field.get_internal_type() == "JSONField" else default
    return columns, defaults


def _study_trials(study, count: int, rng: random.Random) -> Iterator[dict[str, object]]:
    from django.utils import timezone

    builds, scenarios = list(study.builds.all()), list(study.scenarios.all())
    points = [(b, s, c) for b in builds for s in scenarios for c in CLIENT_LEVELS]
    now = timezone.now()
    for position in range(count):
        build, scenario, clients = points[position % len(points)]
        tps = 1000.0 * (1 + clients**0.5) * (1.05 if build.id == study.baseline_id else 1.0) * rng.uniform(0.95, 1.05)
        yield {
            "study_id": study.id,
            "build_id": build.id,
            "scenario_id": scenario.id,
            "host_id": study.db_host_id,
            "clients": clients,
            "threads": max(1, clients // 2),
            "repetition": position // len(points) + 1,
            "position": position,
            "status": "succeeded" if position % 100 else "failed",
            "tps": round(tps, 4),
            "tps_including_connections": round(tps * 0.99, 4),
            "latency_avg_ms": round(clients / tps * 1000, 3),
            "latency_stddev_ms": 0.5,
            "transactions": int(tps * 60),
            "failed_transactions": 0,
            "started_at": now,
            "finished_at": now,
        }


def _refresh_points(study_ids: list[int], repeats: int) -> dict[str, float]:
    """Fill the points of every study, then time a whole-study refresh and a one-point refresh (ms)."""
    from benchdash.studies.models import StudyPoint
    from benchdash.studies.results.store import points_refresh

    started = time.perf_counter()
    for study_id in study_ids:
        points_refresh(study_id=study_id)
    all_s = time.perf_counter() - started
    whole = [_timed_ms(partial(points_refresh, study_id=study_ids[n % len(study_ids)])) for n in range(repeats)]
    points = list(StudyPoint.objects.order_by("?").values_list("study_id", "build_id", "scenario_id", "clients"))
    one = [
        _timed_ms(partial(points_refresh, study_id=study, build_id=build, scenario_id=scenario, clients=clients))
        for study, build, scenario, clients in points[:repeats]
    ]
    return {
        "all studies, s": all_s,
        "points": StudyPoint.objects.count(),
        "whole study p50 ms": statistics.median(whole),
        "whole study p95 ms": _p95(whole),
        "one point p50 ms": statistics.median(one),
        "one point p95 ms": _p95(one),
    }


def _timed_ms(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def _p95(durations: list[float]) -> float:
    return statistics.quantiles(durations, n=20, method="inclusive")[18]


@dataclass
class Timing:
    name: str
    p50_ms: float
    p95_ms: float
    rows: int
    size_bytes: int

    @property
    def rows_per_s(self) -> float:
        return self.rows / (self.p50_ms / 1000) if self.rows else 0.0


def _measure_all(study_id: int, requests: int) -> list[Timing]:
    from django.urls import reverse

    urls = [
        ("trends page", reverse("trends:index")),
        ("trends page, each view right after a trial finished", reverse("trends:index")),
        ("study page", reverse("studies:detail", args=[study_id])),
        ("trials.csv (one study)", reverse("studies:trials_csv", args=[study_id])),
        ("summary.csv (one study)", reverse("studies:summary_csv", args=[study_id])),
        ("trends.csv", reverse("trends:csv")),
    ]
    finish = partial(_finish_a_trial, study_id)
    return [_measure(name, url, requests, finish if "trial finished" in name else None) for name, url in urls]


def _measure(name: str, url: str, requests: int, before: Callable[[], None] | None = None) -> Timing:
    client = _client()
    durations, body = [], b""
    _fetch(client, url)  # warm: templates, query plans
    for _ in range(requests):
        if before is not None:
            before()  # not timed
        started = time.perf_counter()
        body = _fetch(client, url)
        durations.append((time.perf_counter() - started) * 1000)
    rows = body.count(b"\n") - 1 if url.endswith(".csv") else 0
    return Timing(name, statistics.median(durations), _p95(durations), rows, len(body))


def _finish_a_trial(study_id: int) -> None:
    """What trial_finish writes while a study runs: one more succeeded trial, and its point refreshed."""
    from benchdash.studies.models import Trial
    from benchdash.studies.results.store import points_refresh

    trial = Trial.objects.filter(study_id=study_id, status=Trial.Status.FAILED).first()
    if trial is None:
        return
    Trial.objects.filter(pk=trial.pk).update(status=Trial.Status.SUCCEEDED)
    points_refresh(
        study_id=trial.study_id, build_id=trial.build_id, scenario_id=trial.scenario_id, clients=trial.clients
    )


def _client():
    from django.test import Client

    return Client(HTTP_HOST="localhost")


def _fetch(client, url: str) -> bytes:
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code}")
    return b"".join(response.streaming_content) if response.streaming else response.content


def _streaming_memory(study_id: int) -> dict[str, float]:
    """tracemalloc peak after the first 1,000 rows and after the whole file: flat means the same."""
    from django.urls import reverse

    response = _client().get(reverse("studies:trials_csv", args=[study_id]))
    tracemalloc.start()
    stream, size, peaks = iter(response.streaming_content), 0, {}
    for number, chunk in enumerate(stream, start=1):
        size += len(chunk)
        if number == 2:
            peaks["after 1,000 rows"] = _peak_mib()
    peaks["after all rows"] = _peak_mib()
    tracemalloc.stop()
    peaks["file MiB"] = size / 2**20
    return peaks


def _peak_mib() -> float:
    return tracemalloc.get_traced_memory()[1] / 2**20


def _print_report(
    args, empty: list[Timing], full: list[Timing], memory: dict[str, float], fill_s: float, refresh: dict[str, float]
) -> None:
    print(f"\nfilled {args.trials:,} trials across {args.studies} studies in {fill_s:.1f} s")
    print("points_refresh: " + ", ".join(f"{name} {value:,.1f}" for name, value in refresh.items()))
    print(f"load average (1, 5, 15 min): {' '.join(f'{value:.2f}' for value in os.getloadavg())}\n")
    print("| request | empty p50 ms | empty p95 ms | full p50 ms | full p95 ms | rows | size | rows/s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for before, after in zip(empty, full, strict=True):
        rate = f"{after.rows_per_s:,.0f}" if after.rows else ""
        rows = f"{after.rows:,}" if after.rows else ""
        print(
            f"| {after.name} | {before.p50_ms:.1f} | {before.p95_ms:.1f} | {after.p50_ms:.1f} | {after.p95_ms:.1f} "
            f"| {rows} | {after.size_bytes / 1024:,.0f} KiB | {rate} |"
        )
    print("\nmemory while streaming trials.csv (tracemalloc peak, MiB): ", end="")
    print(", ".join(f"{name} {value:.2f}" for name, value in memory.items()))


if __name__ == "__main__":
    main()
