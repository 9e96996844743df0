"""Large CSV files written by PostgreSQL itself: COPY (a queryset's SELECT) TO STDOUT.

Python-side CSV tops out near 40,000 rows per second here (psycopg decoding every value, then the
csv module encoding it again); COPY streams the trials file at several hundred thousand rows per
second while memory stays flat. The queryset still says what is selected; the expressions below
render each cell as the file wants it, so PostgreSQL's output is the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import CharField, Func, QuerySet, Value

from benchdash.studies.csv_cells import FORMULA_TRIGGERS

CHUNK_BYTES = 64 * 1024
# chr(61), chr(43), ...: constants PostgreSQL folds once per statement, and no quoting to get wrong.
_TRIGGERS_SQL = ", ".join(f"chr({ord(trigger)})" for trigger in FORMULA_TRIGGERS)


class InertText(Func):
    """A text cell, with a leading apostrophe when it starts like a spreadsheet formula: csv_cells.inert() in SQL."""

    # left(..., 1) IN (...) rather than a regular expression, which took a quarter of the file's time.
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
    """The rows of a values_list queryset as CSV body bytes (no header), about CHUNK_BYTES at a time.

    If the download stops half-way, psycopg cancels the COPY on the server when the generator closes;
    the atomic block (a savepoint when the caller is already in a transaction) rolls back what the
    cancel aborted, so the connection stays usable.
    """
    sql, params = rows.query.sql_with_params()
    statement = f"COPY ({sql}) TO STDOUT (FORMAT csv)"
    buffer = bytearray()
    with transaction.atomic(), connection.cursor() as cursor, cursor.cursor.copy(statement, params) as copy:
        for row in copy:
            buffer += row
            if len(buffer) >= CHUNK_BYTES:
                yield bytes(buffer)
                buffer.clear()
    yield bytes(buffer)
