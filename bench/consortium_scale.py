"""The store at consortium scale: pages, API, trends and CSV at 1 million and at 10 million trials, in one run.

Usage:  .venv/bin/python bench/consortium_scale.py [--studies 10000 100000] [--requests 20] [--keep]

Creates (drops first) its own database `benchdash_bench_scale` on the store cluster (never the dev one), migrates
it, and fills it in two steps, measuring after each: first 10,000 studies, then 100,000 in all. Every study has 100
trials (2 builds x 2 scenarios x 5 client levels x 5 repetitions, 1% failed) but one, the big study, which has
25,000 (as each of bench/pages_and_csv.py's 40: the study page and the CSV files at size). 28 studies are
official (the trends count them), as a consortium's one a year, at both sizes. The rows are made by PostgreSQL
itself (INSERT ... SELECT over generate_series: a COPY without the round trips; the trials' indexes and foreign keys
are dropped for the load and made again), the big study's points by `points_refresh` and every other study's by
copying the first small study's (all small studies hold the same trials), then VACUUM ANALYZE. Requests go through
Django's test Client in-process with DEBUG=false (server time, as bench/pages_and_csv.py); the trends
recomputation is `trends_data()` timed alone. The database is dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

from pages_and_csv import Timing, _client, _django_setup, _fetch, _p95, _streaming_memory

BENCH_DB = "benchdash_bench_scale"
CLIENT_LEVELS = [1, 16, 64, 128, 288]
SMALL_TRIALS, BIG_TRIALS = 100, 25_000
# Official studies (the trends count them) are a consortium's: about one a year, the same number at every size.
OFFICIAL_COPIES = 26


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the database (default: drop it)")
    args = parser.parse_args()
    _django_setup(BENCH_DB)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    big, small = _first_studies()
    results = []
    for target in args.studies:
        started = time.perf_counter()
        _grow_to(target, template=small)
        fill_s = time.perf_counter() - started
        results.append((target, fill_s, _counts(), _measure_all(big, small, args.requests), _streaming_memory(big)))
        _print(results[-1])
    if not args.keep:
        _drop()


def _first_studies() -> tuple[int, int]:
    """The big study and the first small one, with their builds, scenarios, host, trials and points."""
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario, Study
    from benchdash.studies.results.store import points_refresh

    host = Host.objects.create(name="bench-db", address="192.0.2.10")
    builds = [
        Build.objects.create(name=f"PostgreSQL {v}", version=v, kind=Build.Kind.PUBLISHED) for v in ("16.4", "17.0")
    ]
    scenarios = [
        Scenario.objects.create(slug=slug, name=slug, builtin="select-only") for slug in ("reference", "update")
    ]
    studies = []
    for title, count in (("big study", BIG_TRIALS), ("study 1", SMALL_TRIALS)):
        study = Study.objects.create(
            title=title,
            year=2025,
            status=Study.Status.DONE,
            official=True,
            db_host=host,
            client_host=host,
            baseline=builds[0],
            client_levels=CLIENT_LEVELS,
            repetitions=5,
        )
        study.builds.set(builds)
        study.scenarios.set(scenarios)
        _insert_trials(f"SELECT {study.pk} AS id, {count} AS n")
        points_refresh(study_id=study.pk)
        studies.append(study.pk)
    return studies[0], studies[1]


def _grow_to(target: int, *, template: int) -> None:
    """Copies of the template study (its builds, scenarios, trials and points) until there are `target` studies."""
    from django.db import connection

    from benchdash.studies.models import Study, Trial

    missing = target - Study.objects.count()
    if missing <= 0:
        return
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_new_studies")
        cursor.execute(_copy_studies_sql(template, missing))
        for through in (Study.builds.through, Study.scenarios.through):
            cursor.execute(_copy_rows_sql(through, "study_id", template))
    with _without_indexes_and_foreign_keys(Trial._meta.db_table):
        _insert_trials(f"SELECT id, {SMALL_TRIALS} AS n FROM bench_new_studies")  # noqa: S608
    from benchdash.studies.models import StudyPoint

    with connection.cursor() as cursor:
        cursor.execute(_copy_rows_sql(StudyPoint, "study_id", template))
        cursor.execute("VACUUM ANALYZE studies_study, studies_trial, studies_studypoint")


@contextmanager
def _without_indexes_and_foreign_keys(table: str) -> Iterator[None]:
    """A bulk load's usual way: drop the table's indexes (but its primary key) and its foreign-key and unique
    constraints, load, then make them again from their own definitions: one sort per index and one join per key
    instead of a check per row."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
            "AND contype IN ('f', 'u')",
            [table],
        )
        constraints = cursor.fetchall()
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname NOT IN "
            "(SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
            [table, table],
        )
        indexes = cursor.fetchall()
        for name, _definition in constraints:
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        for name, _definition in indexes:
            cursor.execute(f'DROP INDEX "{name}"')
    yield
    with connection.cursor() as cursor:
        for _name, definition in indexes:
            cursor.execute(definition)
        for name, definition in constraints:
            cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def _columns(model: type, skip: set[str]) -> list[str]:
    return [field.column for field in model._meta.concrete_fields if not field.primary_key and field.column not in skip]


def _copy_studies_sql(template: int, count: int) -> str:
    """Copies of the template study row, titled and dated apart, the first OFFICIAL_COPIES official; their ids are kept
    in bench_new_studies."""
    from benchdash.studies.models import Study

    columns = _columns(Study, {"title", "year", "official", "import_key"})
    listed = ", ".join(columns)
    return (
        f"CREATE TABLE bench_new_studies AS WITH made AS (INSERT INTO studies_study ({listed}, title, year, official) "  # noqa: S608
        f"SELECT {listed}, 'study ' || n, 2000 + n % 26, n < {OFFICIAL_COPIES + 2} "
        f"FROM studies_study, generate_series((SELECT count(*) FROM studies_study), "
        f"(SELECT count(*) FROM studies_study) + {count - 1}) AS n WHERE id = {template} RETURNING id) SELECT id FROM made"  # noqa: E501
    )


def _copy_rows_sql(model: type, study_column: str, template: int) -> str:
    """The template study's rows of model, once for every study in bench_new_studies."""
    columns = _columns(model, {study_column})
    listed = ", ".join(f"t.{column}" for column in columns)
    return (
        f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}, {study_column}) "  # noqa: S608
        f"SELECT {listed}, s.id FROM {model._meta.db_table} t CROSS JOIN bench_new_studies s "
        f"WHERE t.{study_column} = {template}"
    )


def _insert_trials(studies_sql: str) -> None:
    """`n` trials for each study (id, n) the query gives: position p runs build p % 2, scenario p / 2 % 2, clients
    CLIENT_LEVELS[p / 4 % 5], repetition p / 20 + 1; one in 100 failed; every other column its default."""
    from django.db import connection

    from benchdash.studies.models import Trial

    made = {
        "study_id": "s.id",
        "build_id": "s.builds[p % 2 + 1]",
        "scenario_id": "s.scenarios[p / 2 % 2 + 1]",
        "host_id": "s.host_id",
        "clients": f"(ARRAY{CLIENT_LEVELS})[p / 4 % 5 + 1]",
        "threads": f"greatest(1, (ARRAY{CLIENT_LEVELS})[p / 4 % 5 + 1] / 2)",
        "repetition": "p / 20 + 1",
        "position": "p",
        "status": "CASE WHEN p % 100 = 0 THEN 'failed' ELSE 'succeeded' END",
        "tps": f"1000 * (1 + sqrt((ARRAY{CLIENT_LEVELS})[p / 4 % 5 + 1])) * (0.95 + 0.1 * ((p * 7919) % 101) / 100.0)",
        "started_at": "now()",
        "finished_at": "now()",
    }
    defaults = {}
    for field in Trial._meta.concrete_fields:
        if field.primary_key or field.column in made:
            continue
        default = field.get_default()
        defaults[field.column] = json.dumps(default) if field.get_internal_type() == "JSONField" else default
    columns = [*made, *defaults]
    values = [*(expression.replace("%", "%%") for expression in made.values()), *("%s" for _ in defaults)]
    sql = (
        f"INSERT INTO studies_trial ({', '.join(columns)}) SELECT {', '.join(values)} "  # noqa: S608
        f"FROM ({_with_builds_and_scenarios(studies_sql)}) s CROSS JOIN LATERAL generate_series(0, s.n - 1) AS p"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, list(defaults.values()))


def _with_builds_and_scenarios(studies_sql: str) -> str:
    """Each study's id and trial count with its DB host and its builds' and scenarios' ids in order, read once."""
    builds = "SELECT array_agg(build_id ORDER BY build_id) FROM studies_study_builds WHERE study_id = s.id"
    scenarios = "SELECT array_agg(scenario_id ORDER BY scenario_id) FROM studies_study_scenarios WHERE study_id = s.id"
    return (
        f"SELECT s.id, s.n, study.db_host_id AS host_id, ({builds}) AS builds, ({scenarios}) AS scenarios "  # noqa: S608
        f"FROM ({studies_sql}) s JOIN studies_study study ON study.id = s.id"
    )


def _counts() -> dict[str, int]:
    from benchdash.studies.models import Study, StudyPoint, Trial

    return {
        "studies": Study.objects.count(),
        "official": Study.objects.filter(official=True).count(),
        "trials": Trial.objects.count(),
        "points": StudyPoint.objects.count(),
    }


def _measure_all(big: int, small: int, requests: int) -> list[Timing]:
    from django.urls import reverse

    from benchdash.trends.queries import trends_data

    pages = [
        ("trends page", reverse("trends:index")),
        ("study list (first page)", reverse("studies:list")),
        ("study page, big study (25,000 trials)", reverse("studies:detail", args=[big])),
        ("study page, a small study (100 trials)", reverse("studies:detail", args=[small])),
        ("summary.csv (big study)", reverse("studies:summary_csv", args=[big])),
        ("trends.csv", reverse("trends:csv")),
        ("API: studies (first page)", "/api/v1/studies"),
        ("API: the big study's trials (first page)", f"/api/v1/studies/{big}/trials"),
        ("API: the big study's points", f"/api/v1/studies/{big}/points"),
        ("API: trends", "/api/v1/trends"),
    ]
    timings = [_measure(name, partial(_fetch, _client(), url), requests) for name, url in pages]
    timings.append(_measure("trends recomputation (trends_data)", trends_data, requests))
    big_csv = reverse("studies:trials_csv", args=[big])
    timings.append(_measure("trials.csv (big study)", partial(_fetch, _client(), big_csv), max(requests // 4, 5)))
    return timings


def _measure(name: str, call: Callable[[], object], requests: int) -> Timing:
    body = call()  # warm: templates, query plans
    durations = []
    for _ in range(requests):
        started = time.perf_counter()
        body = call()
        durations.append((time.perf_counter() - started) * 1000)
    rows = body.count(b"\n") - 1 if isinstance(body, bytes) and name.startswith("trials.csv") else 0
    size = len(body) if isinstance(body, bytes) else 0
    return Timing(name, statistics.median(durations), _p95(durations), rows, size)


def _print(result) -> None:
    target, fill_s, counts, timings, memory = result
    print(f"\n### {counts['trials']:,} trials, {counts['studies']:,} studies ({counts['official']:,} official)")
    print(f"filled to {target:,} studies in {fill_s:.1f} s; {counts['points']:,} points")
    print(f"load average (1, 5, 15 min): {' '.join(f'{value:.2f}' for value in os.getloadavg())}\n")
    print("| request | p50 ms | p95 ms | size | rows/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for timing in timings:
        rate = f"{timing.rows_per_s:,.0f}" if timing.rows else ""
        size = f"{timing.size_bytes / 1024:,.0f} KiB" if timing.size_bytes else ""
        print(f"| {timing.name} | {timing.p50_ms:.1f} | {timing.p95_ms:.1f} | {size} | {rate} |")
    print("\nmemory while streaming the big study's trials.csv (tracemalloc peak, MiB): ", end="")
    print(", ".join(f"{name} {value:.2f}" for name, value in memory.items()), flush=True)


def _drop() -> None:
    from django.db import connection
    from servers import drop_store

    connection.close()
    drop_store(BENCH_DB)


if __name__ == "__main__":
    main()
