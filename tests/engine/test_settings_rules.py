"""workers/settings_rules.py: what no study may set, and values read as the server reads them.

The last tests ask real servers of several majors (`postgres -C NAME -c NAME=VALUE`) and check that the
rules never take a value the server refuses, and refuse what it takes only where they mean to be stricter.
"""

import posixpath
from collections.abc import Iterator

import pytest

from tests.pgbuilds import archive_build_of
from workers.builds import install_build
from workers.cluster import Cluster
from workers.settings_catalog import catalog_majors, load_catalog
from workers.settings_rules import (
    MAX_BACKENDS,
    never_allowed,
    parse_bool,
    processes_refusal,
    quantity_text,
    setting_refusal,
    study_settings_refusals,
)
from workers.spec import BuildSpec, HostSpec
from workers.transport import connect

PG15 = load_catalog(15)


def refused(major: int, name: str, value: str) -> str:
    catalog = load_catalog(major)
    assert catalog is not None
    refusal = setting_refusal(catalog, name, value)
    return str(refusal) if refusal else ""


def test_there_is_a_catalog_for_every_major_from_10_to_18():
    assert catalog_majors() == list(range(10, 19))
    assert all(load_catalog(major).version.startswith(f"{major}.") for major in catalog_majors())


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("archive_command", "curl http://x | sh", "runs a command"),
        ("restore_command", "cp %f %p", "runs a command"),
        ("archive_cleanup_command", "rm -rf /", "runs a command"),
        ("ssl_passphrase_command", "sh -c id", "runs a command"),
        ("shared_preload_libraries", "pg_stat_statements", "loads code"),
        ("local_preload_libraries", "x", "loads code"),
        ("session_preload_libraries", "x", "loads code"),
        ("dynamic_library_path", "/tmp", "loads code"),
        ("archive_library", "basic_archive", "loads code"),
        ("jit_provider", "llvmjit", "loads code"),
        ("pg_stat_statements.max", "1000", "extension library"),
        ("data_directory", "/tmp/other", "names a file or directory"),
        ("hba_file", "/tmp/hba", "names a file or directory"),
        ("config_file", "/tmp/x.conf", "names a file or directory"),
        ("external_pid_file", "/tmp/pid", "names a file or directory"),
        ("stats_temp_directory", "pg_stat_tmp", "names a file or directory"),
        ("include", "/etc/passwd", "names a file or directory"),
        ("include_dir", "/etc", "names a file or directory"),
        ("log_directory", "/tmp/logs", "points outside the cluster"),
        ("log_directory", "../../logs", "points outside the cluster"),
        ("log_filename", "../x.log", "points outside the cluster"),
        ("log_filename", "sub/x.log", "points outside the cluster"),
        ("listen_addresses", "*", "where the server listens"),
        ("port", "5432", "where the server listens"),
        ("unix_socket_directories", "/tmp", "where the server listens"),
        ("unix_socket_permissions", "0777", "where the server listens"),
        ("ssl", "on", "where the server listens"),
        ("password_encryption", "md5", "where the server listens"),
    ],
)
def test_it_refuses_what_no_study_may_set_with_the_reason(name, value, reason):
    refusal = never_allowed(name, value, PG15.get(name))
    assert refusal is not None and reason in str(refusal)
    assert reason in refused(15, name, value)


def test_it_lets_the_log_stay_inside_the_cluster():
    assert never_allowed("log_directory", "log") is None
    assert never_allowed("log_directory", "log/benchdash") is None
    assert never_allowed("log_filename", "postgresql-%a.log") is None


def test_the_engine_needs_no_catalog_to_refuse_the_never_allowed_classes():
    assert "runs a command" in str(study_settings_refusals(99, {"archive_command": "x"})[0])
    assert "no settings catalog for PostgreSQL 99" in str(study_settings_refusals(99, {"work_mem": "4MB"})[0])
    assert study_settings_refusals(99, {}) == []


@pytest.mark.parametrize(
    ("major", "name", "value", "message"),
    [
        (15, "shared_buffers", "banana", "shared_buffers = banana: PostgreSQL 15 wants a number, optionally "),
        (15, "shared_buffers", "15", "accepts 128kB to 8589934584kB"),
        (15, "shared_buffers", "128mb", "(TB, GB, MB, kB, B)"),
        (10, "shared_buffers", "65536B", "PostgreSQL 10 wants a whole number, optionally followed by a unit (TB, GB"),
        (11, "work_mem", "1.5MB", "PostgreSQL 11 wants a whole number"),
        (15, "checkpoint_timeout", "2d", "accepts 30s to 1d"),
        (11, "checkpoint_timeout", "30000000us", "(d, h, min, s, ms)"),
        (15, "enable_seqscan", "maybe", "wants on or off"),
        (15, "synchronous_commit", "sometimes", "wants one of local, remote_write, remote_apply, on, off"),
        (15, "random_page_cost", "inf", "wants a number"),
        (15, "random_page_cost", "-1", "accepts 0 to"),
        (15, "max_connections", "１００", "wants a number"),
        (15, "max_connections", "0x10", "wants a number"),
        (15, "block_size", "16384", "fixed when PostgreSQL is built"),
        (15, "shared_bufers", "128MB", "PostgreSQL 15 has no setting named shared_bufers"),
        (10, "hash_mem_multiplier", "2", "PostgreSQL 10 has no setting named hash_mem_multiplier"),
        (15, "log_line_prefix", "x" * 1001, "at most 1000 characters"),
    ],
)
def test_it_refuses_a_value_the_server_would_refuse_and_says_what_it_wants(major, name, value, message):
    assert message in refused(major, name, value)


@pytest.mark.parametrize(
    ("major", "name", "value"),
    [
        (15, "shared_buffers", "40GB"),
        (15, "shared_buffers", "1.5GB"),
        (15, "checkpoint_timeout", "60min"),
        (15, "max_wal_size", "160GB"),
        (15, "enable_seqscan", "OFF"),
        (15, "synchronous_commit", "yes"),
        (15, "random_page_cost", "1.1"),
        (15, "log_min_duration_statement", "-1"),
        (10, "maintenance_work_mem", "2047MB"),
        (18, "io_method", "worker"),
    ],
)
def test_it_takes_what_the_server_takes(major, name, value):
    assert refused(major, name, value) == ""


def test_it_reads_booleans_as_the_server_does():
    assert [parse_bool(text) for text in ("t", "TRU", "y", "on", "of", "1", "0", "no")] == [
        True,
        True,
        True,
        True,
        False,
        True,
        False,
        False,
    ]
    assert [parse_bool(text) for text in ("o", "2", "", " on", "truex")] == [None] * 5


def test_it_counts_every_server_process_against_the_servers_limit():
    assert processes_refusal(PG15, {"max_connections": "262140"}) is not None
    assert str(MAX_BACKENDS) in str(processes_refusal(PG15, {"max_connections": "262140"}))
    assert processes_refusal(PG15, {"max_connections": "5000"}) is None


def test_it_writes_a_bound_in_the_unit_a_person_reads():
    assert (quantity_text(16, "8kB"), quantity_text(86400, "s"), quantity_text(0.5, ""), quantity_text(-1, "ms")) == (
        "128kB",
        "1d",
        "0.5",
        "-1ms",
    )


# -- against the real servers ----------------------------------------------------------------------
PROBES = {
    "shared_buffers": ["128MB", "banana", "1.5GB", "16", "15", "1kB", "130kB", "100kB", "128 MB", "128mb", "-1"],
    "work_mem": ["4MB", "64", "63", "65536B", "1.5MB", "2147483647", "2147483648", "2GB", "1e9kB", "010"],
    "checkpoint_timeout": ["60min", "1d", "2d", "30", "29", "1h", "29999ms", "30001ms", "100us", "1.5min", "30 s"],
    "max_wal_size": ["160GB", "2", "1", "1GB", "1024kB"],
    "random_page_cost": ["1.1", "inf", "nan", "-1", "1e400", "4ms", "1e3", ".5", "5."],
    "vacuum_cost_delay": ["2", "2ms", "2.5ms", "100ms", "101ms", "1s", "0.5"],
    "enable_seqscan": ["on", "off", "tru", "o", "ON", "yes", "2", "of", " on", ""],
    "synchronous_commit": ["local", "LOCAL", "true", "maybe", "1", "remote_apply", "of"],
    "wal_level": ["minimal", "replica", "logical", "banana"],
    "max_connections": ["100", "1", "0", "262144", "500"],
    "autovacuum_naptime": ["1min", "1", "0", "2147483", "2147484", "500ms"],
    "log_min_duration_statement": ["-1", "-2", "250ms"],
    "maintenance_work_mem": ["20GB", "2047MB", "1023kB", "1024kB", "2TB"],
}
# Forms the server takes that the rules refuse on purpose: hex, octal and hidden enum aliases.
STRICTER = {("work_mem", "010"), ("shared_buffers", "0x10")}
AGREEMENT_MAJORS = ["10", "11", "12", "16"]


@pytest.fixture(params=["installed", *AGREEMENT_MAJORS])
def probed_build(request, installed_build) -> BuildSpec:
    return installed_build if request.param == "installed" else archive_build_of(request.param)


@pytest.fixture
def initdb_cluster(local_target: HostSpec, probed_build: BuildSpec) -> Iterator[Cluster]:
    """An initdb'd cluster with the engine's files in place (one start and stop writes them)."""
    with connect(local_target) as transport:
        installed = install_build(transport, probed_build)
        cluster = Cluster(transport, installed, posixpath.join(local_target.work_dir, "probe", "data"))
        cluster.initdb()
        cluster.start()
        cluster.stop()
        yield cluster


# One command for every probe: a postgres -C each, its verdict a line. One command a probe paid each time for what the
# transport wraps around a command (the account's switch, a watchdog, a shell), more than for the server itself.
SERVER_TAKES_SCRIPT = """postgres=$1 data=$2; shift 2
for setting do "$postgres" -D "$data" -C "${setting%%=*}" -c "$setting" >/dev/null 2>&1 && echo 1 || echo 0; done"""


def server_takes(cluster: Cluster, probes: list[tuple[str, str]]) -> list[bool]:
    """For each (name, value), whether the server starts with name=value."""
    settings = [f"{name}={value}" for name, value in probes]
    argv = ["sh", "-c", SERVER_TAKES_SCRIPT, "sh", cluster.installed.tool("postgres"), cluster.data_dir, *settings]
    return [line == "1" for line in cluster.transport.run(argv, timeout=120).text.splitlines()]


def test_the_rules_never_take_a_value_the_server_refuses(initdb_cluster):
    catalog = load_catalog(initdb_cluster.installed.major)
    probes = [(name, value) for name, values in PROBES.items() for value in values]
    taken = server_takes(initdb_cluster, probes)
    disagreements = []
    for (name, value), theirs in zip(probes, taken, strict=True):
        ours = setting_refusal(catalog, name, value) is None
        if ours != theirs and (ours or (name, value) not in STRICTER):
            disagreements.append((name, value, "rules take it" if ours else "rules refuse it"))
    assert disagreements == []
