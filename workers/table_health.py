"""Table health: the pgbench tables and indexes read before and after a run (seed 003's HOT test, by the server).

For each relation of the pgbench tables: its size (pg_relation_size); for each table, pg_stat_user_tables' live and
dead tuples and its updates, HOT ones apart; and, where the build has the pgstattuple extension, its exact tuple
count, dead-tuple share and free space, as seed 003 read them:
「SELECT pg_size_pretty(pg_relation_size('accounts'))」「SELECT * FROM pgstattuple('accounts')」.

The after reading waits (at most STATS_WAIT_S) until pgbench's sessions have left the server: a session flushes its
statistics as it exits, so pg_stat_user_tables then counts every update of the run. pgstattuple reads a whole table;
a table larger than PGSTATTUPLE_MAX_BYTES is left out, with a note, so a reading never costs minutes. A reading that
fails becomes a note: a trial never fails because of its table health.
"""

import json
from typing import Any

from workers.cluster import Cluster, ClusterError
from workers.transport import ConnectionLost, TransportError

NOTE_PREFIX = "table_health"
PGSTATTUPLE_MAX_BYTES = 1 << 30
STATS_WAIT_S = 5
_TENTHS = STATS_WAIT_S * 10

# pgbench's sessions name themselves "pgbench" (fallback_application_name). Both f-strings hold our constants only.
WAIT_FOR_PGBENCH_SQL = f"""DO $$
BEGIN
  FOR i IN 1..{_TENTHS} LOOP
    EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
                          WHERE application_name = 'pgbench' AND pid <> pg_backend_pid());
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
"""  # noqa: S608

# Tables named pgbench_* (partitions too), and their indexes.
SIZES_AND_STATS_SQL = r"""SELECT json_build_object(
  'relations', coalesce((
    SELECT json_agg(json_build_object('name', c.relname, 'table', coalesce(t.relname, c.relname),
                                      'kind', CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END,
                                      'bytes', pg_relation_size(c.oid)) ORDER BY coalesce(t.relname, c.relname),
                                                                              c.relkind DESC, c.relname)
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_index i ON i.indexrelid = c.oid
    LEFT JOIN pg_class t ON t.oid = i.indrelid
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')
      AND coalesce(t.relname, c.relname) LIKE 'pgbench\_%'), '[]'),
  'tables', coalesce((
    SELECT json_agg(json_build_object('name', relname, 'n_live_tup', n_live_tup, 'n_dead_tup', n_dead_tup,
                                      'n_tup_upd', n_tup_upd, 'n_tup_hot_upd', n_tup_hot_upd) ORDER BY relname)
    FROM pg_stat_user_tables
    WHERE schemaname = current_schema() AND relname LIKE 'pgbench\_%'), '[]'));
"""

PGSTATTUPLE_QUERY = rf"""SELECT coalesce(json_agg(json_build_object('name', q.relname, 'table_len', (q.s).table_len,
  'tuple_count', (q.s).tuple_count, 'dead_tuple_count', (q.s).dead_tuple_count,
  'dead_tuple_percent', (q.s).dead_tuple_percent, 'free_percent', (q.s).free_percent) ORDER BY q.relname), '[]')
FROM (SELECT c.relname, pgstattuple(c.oid::regclass) AS s
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'pgbench\_%'
        AND pg_relation_size(c.oid) <= {PGSTATTUPLE_MAX_BYTES}) AS q"""  # noqa: S608
PGSTATTUPLE_SQL = PGSTATTUPLE_QUERY + ";\n"
TABLES_BYTES_QUERY = r"""SELECT coalesce(sum(pg_relation_size(c.oid)), 0)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'pgbench\_%'"""


class TableHealth:
    """The readings of one trial: `read("before")` and `read("after")`, then `artifact()` and `notes`."""

    extension = "pgstattuple"
    # Tables this small are read by pgstattuple in a fraction of a second: one plain command. Larger ones are read by
    # a background command (Cluster.psql_long), which a cancel can stop; it costs more commands and processes.
    quick_bytes = 64 << 20

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.together = True  # the sizes and pgstattuple read by one command, until that fails
        self.readings: dict[str, dict[str, Any]] = {}
        self.notes: list[str] = []

    def read(self, moment: str) -> None:
        """One reading; after the run, once pgbench's sessions have gone. A failure becomes a note. The sizes and,
        where the tables are small, pgstattuple's rows come from one command; where that fails (a build without the
        extension), they are read apart from then on."""
        wait = WAIT_FOR_PGBENCH_SQL if moment == "after" else ""
        try:
            reading, rows = self._read_together(wait) if self.together else (self._read_sizes(wait), None)
        except ConnectionLost:  # the host, not the reading: the runner waits for it and reads again
            raise
        except (ClusterError, TransportError, ValueError, IndexError) as error:
            if self.together:
                self.together = False
                self.read(moment)
            else:
                self.notes.append(f"{NOTE_PREFIX}: no reading {moment} the run ({error})")
            return
        if rows is None:
            rows = self.pgstattuple(reading["relations"])
        if rows is not None:
            self.note_too_large(moment, reading["relations"], {row["name"] for row in rows})
        reading["pgstattuple"] = rows
        self.readings[moment] = reading

    def _read_sizes(self, wait: str) -> dict[str, Any]:
        return json.loads(self.cluster.psql(wait + SIZES_AND_STATS_SQL).strip().splitlines()[-1])

    def _read_together(self, wait: str) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
        """The sizes, and pgstattuple's rows where the tables hold at most quick_bytes (else None: read apart)."""
        quick = f"SELECT CASE WHEN ({TABLES_BYTES_QUERY}) <= {int(self.quick_bytes)} THEN ({PGSTATTUPLE_QUERY})"
        sql = f"{wait}{SIZES_AND_STATS_SQL}CREATE EXTENSION IF NOT EXISTS {self.extension};\n{quick} ELSE 'null' END;\n"
        *_, sizes, rows = self.cluster.psql(sql).strip().splitlines()
        return json.loads(sizes), json.loads(rows)

    def pgstattuple(self, relations: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """pgstattuple's rows, or None where the build lacks the extension (noted once)."""
        try:
            create = f"CREATE EXTENSION IF NOT EXISTS {self.extension}"
            if sum(relation["bytes"] for relation in relations if relation["kind"] == "table") <= self.quick_bytes:
                out = self.cluster.psql(f"{create};\n{PGSTATTUPLE_SQL}")
            else:
                out = self.cluster.psql_long(create, PGSTATTUPLE_SQL, name="stattuple")
            rows: list[dict[str, Any]] = json.loads(out.strip().splitlines()[-1])
        except ConnectionLost:
            raise
        except (ClusterError, TransportError, ValueError, IndexError) as error:
            note = f"{NOTE_PREFIX}: pgstattuple not available in this build ({_server_error(error)})"
            if note not in self.notes:
                self.notes.append(note)
            return None
        return rows

    def note_too_large(self, moment: str, relations: list[dict[str, Any]], read: set[str]) -> None:
        for relation in relations:
            if relation["kind"] == "table" and relation["name"] not in read:
                size_mib = relation["bytes"] / (1 << 20)
                self.notes.append(
                    f"{NOTE_PREFIX}: pgstattuple skipped {relation['name']} {moment} the run "
                    f"({size_mib:.0f} MiB > {PGSTATTUPLE_MAX_BYTES >> 20} MiB)"
                )

    def artifact(self) -> dict[str, bytes]:
        """{"table_health": JSON of the readings}, or nothing when neither reading came."""
        return {"table_health": json.dumps(self.readings).encode()} if self.readings else {}


def _server_error(error: Exception) -> str:
    """The server's ERROR line, without psql's hint lines around it."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    errors = [line[line.index("ERROR:") :] for line in lines if "ERROR:" in line]
    return (errors or lines or [type(error).__name__])[0]
