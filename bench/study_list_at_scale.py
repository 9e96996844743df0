"""The study list's filter choices at 100,000 studies: a join made distinct (before) against EXISTS (now), and the
whole first page, in one run.

Usage:  .venv/bin/python bench/study_list_at_scale.py [--studies 100000] [--requests 20]

Makes (drops first, and drops at the end) its own database `benchdash_bench_study_list`, migrates it, and fills it
by SQL with the given number of studies, each linked to the same 2 builds and 2 scenarios (no trials: the list
counts the trials of its page's studies only). Prints p50 and p95 of each query and of the page (Django's test
Client, in-process, DEBUG=false).
"""

import argparse
import os
import statistics
import time
from collections.abc import Callable

from pages_and_csv import _client, _django_setup, _p95

BENCH_DB = "benchdash_bench_study_list"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    _django_setup(BENCH_DB)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    _fill(args.studies)
    for name, call in _queries().items():
        print(f"{name}: p50 %.1f ms, p95 %.1f ms" % _timed(call, args.requests))
    print(f"load average (1, 5, 15 min): {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    _drop()


def _fill(count: int) -> None:
    from django.db import connection

    from benchdash.inventory.models import Build
    from benchdash.studies.models import Scenario, Study

    first = Study.objects.create(title="study 0", year=2020)
    first.builds.set([Build.objects.create(name=v, version=v, kind="published") for v in ("16.4", "17.0")])
    first.scenarios.set([Scenario.objects.create(slug=s, name=s, builtin="select-only") for s in ("read", "write")])
    columns = ", ".join(
        field.column
        for field in Study._meta.concrete_fields
        if not field.primary_key and field.column not in ("title", "year", "import_key")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO studies_study ({columns}, title, year) SELECT {columns}, 'study ' || n, 2000 + n % 26 "  # noqa: S608
            f"FROM studies_study, generate_series(1, {count - 1}) AS n WHERE id = {first.pk}"
        )
        for table, column in (("studies_study_builds", "build_id"), ("studies_study_scenarios", "scenario_id")):
            cursor.execute(
                f"INSERT INTO {table} (study_id, {column}) SELECT s.id, t.{column} FROM studies_study s "  # noqa: S608
                f"CROSS JOIN {table} t WHERE t.study_id = {first.pk} AND s.id <> {first.pk}"
            )
        cursor.execute("VACUUM ANALYZE")


def _queries() -> dict[str, Callable[[], object]]:
    from django.db.models import Exists, OuterRef

    from benchdash.inventory.models import Build
    from benchdash.studies.models import Scenario, Study

    linked_scenario = Exists(Study.scenarios.through.objects.filter(scenario=OuterRef("pk")))
    linked_build = Exists(Study.builds.through.objects.filter(build=OuterRef("pk")))
    client = _client()
    return {
        "scenarios with a study, join + DISTINCT (before)": lambda: list(
            Scenario.objects.filter(studies__isnull=False).distinct().values_list("slug", flat=True)
        ),
        "versions with a study, join + DISTINCT (before)": lambda: list(
            Build.objects.filter(studies__isnull=False).values_list("version", flat=True).distinct()
        ),
        "scenarios with a study, EXISTS (now)": lambda: list(
            Scenario.objects.filter(linked_scenario).values_list("slug", flat=True)
        ),
        "versions with a study, EXISTS (now)": lambda: list(
            Build.objects.filter(linked_build).values_list("version", flat=True)
        ),
        "study list, first page": lambda: client.get("/studies/"),
    }


def _timed(call: Callable[[], object], requests: int) -> tuple[float, float]:
    call()
    durations = []
    for _ in range(requests):
        started = time.perf_counter()
        call()
        durations.append((time.perf_counter() - started) * 1000)
    return statistics.median(durations), _p95(durations)


def _drop() -> None:
    from django.db import connection
    from servers import drop_store

    connection.close()
    drop_store(BENCH_DB)


if __name__ == "__main__":
    main()
