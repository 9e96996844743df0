"""Large CSV files written by PostgreSQL itself: COPY (a queryset's SELECT) TO STDOUT.

Python-side CSV tops out near 40,000 rows per second here (psycopg decoding every value, then the
csv module encoding it again); COPY writes the trials file at several hundred thousand rows per
second while memory stays flat; the file is spooled before it is sent (copy_csv_chunks). The queryset still says
what is selected; the expressions below render each cell as the file wants it, so PostgreSQL's output is the file.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO, Any

from django.conf import settings
from django.db import connection
from django.db.models import CharField, Func, QuerySet, Value

from benchdash.studies.csv_cells import FORMULA_TRIGGERS

CHUNK_BYTES = 64 * 1024
SPOOL_BYTES = 4 * CHUNK_BYTES
# chr(61), chr(43), ...: constants PostgreSQL folds once per statement, and no quoting to get wrong.
_TRIGGERS_SQL = ", ".join(f"chr({ord(trigger)})" for trigger in FORMULA_TRIGGERS)


class InertText(Func):
    """A text cell, with a leading apostrophe when it starts like a spreadsheet formula: csv_cells.inert() in SQL."""

    # left(..., 1) IN (...) rather than a regular expression: it runs on five text cells of every row, where a regular
    # expression was a large share of the file's time (docs/BENCHMARKS.md).
    template = (
        f"CASE WHEN left(%(expressions)s, 1) IN ({_TRIGGERS_SQL}) THEN '''' || %(expressions)s ELSE %(expressions)s END"
    )
    output_field = CharField()


class FlagText(Func):
    """A boolean as 'true' / 'false', as the Python-written files print it."""

    template = "CASE WHEN %(expressions)s THEN 'true' ELSE 'false' END"
    output_field = CharField()


class LocalTimeText(Func):
    """A timestamp as '2021-10-01 12:34:56' in settings.TIME_ZONE, which Excel reads as a date.

    timezone(zone, ts) is PostgreSQL's spelling of ts AT TIME ZONE zone.
    """

    function = "timezone"
    template = "(%(function)s(%(expressions)s)::timestamp(0))::text"
    output_field = CharField()

    def __init__(self, expression: str) -> None:
        super().__init__(Value(settings.TIME_ZONE), expression)


def copy_csv_chunks(rows: QuerySet[Any]) -> Iterator[bytes]:
    """The rows of a values_list queryset as CSV body bytes (no header), CHUNK_BYTES at a time.

    The COPY runs to its end into a temporary file (in memory up to SPOOL_BYTES, on disk beyond) before the first
    byte is handed out: a slow reader then holds a file, never a transaction, a snapshot or a running statement.
    A download stopped half-way closes the generator, which deletes the file.
    """
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        _copy_into(rows, spool)
        spool.seek(0)
        while chunk := spool.read(CHUNK_BYTES):
            yield chunk


def _copy_into(rows: QuerySet[Any], spool: IO[bytes]) -> None:
    sql, params = rows.query.sql_with_params()
    statement = f"COPY ({sql}) TO STDOUT (FORMAT csv)"
    with connection.cursor() as cursor, cursor.cursor.copy(statement, params) as copy:
        for data in copy:
            spool.write(data)
