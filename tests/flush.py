"""How a transactional test's teardown empties the test database: DELETE of every table's rows, not Django's TRUNCATE
(tests/conftest.py's flush_by_delete; bench/flush_truncate_vs_delete.py measures the two)."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.db.backends.base.operations import BaseDatabaseOperations


def delete_flush_sql(operations: "BaseDatabaseOperations", tables: list[str]) -> list[str]:
    """The statements that empty the tables: a lock of them all first, as TRUNCATE takes (the rows go once every
    other transaction on them has ended), then a DELETE each. Django's foreign keys are DEFERRABLE INITIALLY
    DEFERRED: the order of the deletes does not matter."""
    names = [operations.quote_name(table) for table in tables]
    deletes = [f"DELETE FROM {name};" for name in names]  # noqa: S608 (Django's own table names, quoted)
    return ["SET CONSTRAINTS ALL DEFERRED;", f"LOCK TABLE {', '.join(names)} IN ACCESS EXCLUSIVE MODE;", *deletes]
