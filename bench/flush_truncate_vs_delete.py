"""How long a transactional test's teardown takes to empty the test database: Django's flush (one TRUNCATE of every
table) against tests/flush.py's (a lock of the tables, then a DELETE each), taking turns.

Usage (with the store of `make run` or `make test` up):  .venv/bin/python bench/flush_truncate_vs_delete.py
[--rounds 9]

A database of its own (bench_flush, made and migrated as pytest-django makes a test database, dropped at the end)
gets before each flush what a queue test leaves: the seeds' scenarios and study presets, a host, a build and a
study of two trials. Only the flush statements are timed; Django's post_migrate work after them is the same for
both. Prints the median and range of each in a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchdash.settings")
BENCH_DATABASE = "bench_flush"


def fill() -> None:
    """The rows a queue test leaves behind."""
    from benchdash.studies.preset_sync import presets_sync
    from tests.factories import BuildFactory, HostFactory, StudyFactory, TrialFactory

    presets_sync()
    study = StudyFactory(db_host=HostFactory(), builds=[BuildFactory()])
    TrialFactory.create_batch(2, study=study)


def timed_flush(statements: Callable[[list[str]], list[str]]) -> float:
    from django.db import connection

    fill()
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    sql = statements(tables)
    started = time.perf_counter()
    connection.ops.execute_sql_flush(sql)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    rounds = parser.parse_args().rounds

    import django
    from django.core.management.color import no_style
    from django.db import connection

    from tests.flush import delete_flush_sql

    django.setup()
    connection.settings_dict["TEST"]["NAME"] = BENCH_DATABASE
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    kinds: dict[str, Callable[[list[str]], list[str]]] = {
        "TRUNCATE (Django's flush)": lambda tables: connection.ops.sql_flush(no_style(), tables),
        "LOCK, then DELETE (tests/flush.py)": lambda tables: delete_flush_sql(connection.ops, tables),
    }
    seconds: dict[str, list[float]] = {kind: [] for kind in kinds}
    try:
        for _ in range(rounds):
            for kind, statements in kinds.items():
                seconds[kind].append(timed_flush(statements))
    finally:
        connection.creation.destroy_test_db(BENCH_DATABASE, verbosity=0)
    print(f"| flush | median, s | range, s ({rounds} rounds) |\n| --- | ---: | ---: |")
    for kind, values in seconds.items():
        print(f"| {kind} | {statistics.median(values):.3f} | {min(values):.3f} to {max(values):.3f} |")


if __name__ == "__main__":
    main()
