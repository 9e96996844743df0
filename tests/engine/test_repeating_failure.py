"""workers/repeating_failure.py on the words servers and pgbench print: which causes repeat, and what is kept."""

from workers.repeating_failure import SCRIPT_CAUSES, repeating_cause

SHARED_MEMORY_LOG = """\
2026-11-26 14:20:01.120 UTC [4242] LOG:  starting PostgreSQL 15.14 on x86_64-pc-linux-gnu
2026-11-26 14:20:01.123 UTC [4242] FATAL:  could not map anonymous shared memory: Cannot allocate memory
2026-11-26 14:20:01.123 UTC [4242] HINT:  This error usually means that PostgreSQL's request for a shared memory \
segment exceeded available memory, swap space, or huge pages. To reduce the request size (currently 42958643200 \
bytes), reduce PostgreSQL's shared memory usage, perhaps by reducing shared_buffers or max_connections.
2026-11-26 14:20:01.124 UTC [4242] LOG:  database system is shut down
"""


def test_a_server_without_the_memory_it_asks_for_keeps_its_fatal_line_and_hint():
    assert repeating_cause(SHARED_MEMORY_LOG) == (
        "FATAL:  could not map anonymous shared memory: Cannot allocate memory\n"
        "HINT:  This error usually means that PostgreSQL's request for a shared memory segment exceeded available "
        "memory, swap space, or huge pages. To reduce the request size (currently 42958643200 bytes), reduce "
        "PostgreSQL's shared memory usage, perhaps by reducing shared_buffers or max_connections."
    )


def test_a_build_missing_a_library_and_a_bad_value_repeat():
    loader = "postgres: error while loading shared libraries: libicuuc.so.72: cannot open shared object file"
    assert repeating_cause(loader) == loader
    value = '[77] LOG:  invalid value for parameter "work_mem": "4XB"\n[77] HINT:  Valid units are "B", "kB".\n'
    assert (
        repeating_cause(value)
        == 'LOG:  invalid value for parameter "work_mem": "4XB"\nHINT:  Valid units are "B", "kB".'
    )


def test_a_script_pgbench_cannot_read_repeats_but_not_for_the_server():
    stderr = 'pgbench: error: /tmp/t/script.sql:2: syntax error in command "set"\n'
    assert repeating_cause(stderr, SCRIPT_CAUSES) == 'error: /tmp/t/script.sql:2: syntax error in command "set"'
    assert repeating_cause(stderr) is None


def test_a_crash_or_a_port_taken_is_tried_again():
    assert repeating_cause('[1] LOG:  could not bind IPv4 address "127.0.0.1": Address already in use') is None
    assert repeating_cause('[1] PANIC:  could not write to file "pg_wal/xlogtemp.1": No space left') is None
    assert repeating_cause("pgbench: error: connection to server failed", SCRIPT_CAUSES) is None
