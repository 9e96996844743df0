"""A variant's cluster on a real build: initdb options checked against the build's own `initdb --help` and in effect
on the server, and the CPU set holding the postmaster and every backend, checked from /proc (issue 21, point 1)."""

import time
from dataclasses import replace

import pytest

from tests.pgbuilds import archive_build_of
from workers.builds import find_client_tool, install_build
from workers.cpu_set import CpuSetError, chosen_cpus, escaped_processes, parse_cpu_list
from workers.initdb_options import InitdbOptions, InitdbOptionUnknown, initdb_arguments, known_options
from workers.spec import ScenarioSpec, TrialSpec
from workers.trial_cluster import cluster_dir, prepare_cluster


def variant_trial(host, build, **variant) -> TrialSpec:
    return TrialSpec(
        trial_id=1,
        study_id=21,
        db_host=host,
        client_host=host,
        build=build,
        scenario=ScenarioSpec(slug="reference", builtin="select-only"),
        clients=1,
        threads=1,
        duration_s=1,
        scale=1,
        pg_settings={"shared_buffers": "32MB"},
        **variant,
    )


def test_the_initdb_options_are_read_from_the_builds_help_and_refused_when_missing(local_transport, installed_build):
    installed = install_build(local_transport, installed_build)
    known = known_options(local_transport.run([installed.tool("initdb"), "--help"]).text)
    assert {"--data-checksums", "--wal-segsize", "--locale", "--encoding"} <= known
    options = InitdbOptions(data_checksums=True, wal_segment_mb=32, locale="C", encoding="SQL_ASCII")
    argv = initdb_arguments(options, known)
    assert argv == ["-E", "SQL_ASCII", "--locale=C", "--data-checksums", "--wal-segsize=32"]
    # Checksums off before 18 is initdb's default: nothing to add, nothing to refuse.
    assert initdb_arguments(InitdbOptions(data_checksums=False), known - {"--no-data-checksums"}) == [
        "-E",
        "UTF8",
        "--no-locale",
    ]
    with pytest.raises(InitdbOptionUnknown, match="no --wal-segsize"):
        initdb_arguments(InitdbOptions(wal_segment_mb=64), known - {"--wal-segsize"})


def test_a_variant_with_checksums_and_a_wal_segment_size_gets_its_own_cluster_made_so(
    local_target, local_transport, installed_build, running_clusters
):
    options = InitdbOptions(data_checksums=True, wal_segment_mb=32)
    spec = variant_trial(local_target, installed_build, initdb_options=options)
    cluster = prepare_cluster(local_transport, spec)
    running_clusters.append(cluster)
    assert cluster_dir(spec).endswith("-s1-f100-k1-w32")
    assert cluster_dir(replace(spec, initdb_options=InitdbOptions())).endswith("-s1-f100")
    shown = cluster.psql("SHOW data_checksums; SHOW wal_segment_size; SHOW server_encoding;").split()
    assert shown == ["on", "32MB", "UTF8"]
    assert cluster.read_marker()["initdb"] == "k1-w32"


def test_the_server_and_every_backend_stay_in_the_cpu_set_and_an_escape_is_refused(
    local_target, local_transport, installed_build, running_clusters
):
    spec = variant_trial(local_target, installed_build, cpus=1)
    cluster = prepare_cluster(local_transport, spec)
    running_clusters.append(cluster)
    assert cluster.cpus == [0]
    psql = find_client_tool(local_transport, "psql", cluster.installed)
    connection = ["-h", cluster.socket_dir, "-p", str(cluster.port), "-U", cluster.user, "-d", cluster.dbname]
    # a backend that lives while the CPU set is read
    local_transport.start_background("sleeper", [psql, "-X", *connection, "-c", "SELECT pg_sleep(3)"])
    try:
        pid = _wait_for_backend(cluster)
        lines = cluster.check_cpu_set()
        by_pid = dict(line.split("\t") for line in lines)
        assert by_pid[pid] == "0"
        assert len(lines) >= 4  # the postmaster, its background processes and the backend
        assert set(by_pid.values()) == {"0"}
        local_transport.run(["taskset", "-pc", "0,1", pid])
        with pytest.raises(CpuSetError, match=rf"{pid} \(0,?-?1\)"):
            cluster.check_cpu_set()
    finally:
        local_transport.wait_background("sleeper", timeout=30)


def _wait_for_backend(cluster) -> str:
    sql = "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid();"
    for _ in range(50):
        pid = cluster.psql(sql).strip()
        if pid:
            return pid
        time.sleep(0.1)
    raise AssertionError("the sleeping backend never showed up")


def test_a_cpu_count_the_host_does_not_have_is_refused_and_escapes_are_named():
    assert parse_cpu_list("0-2,5") == [0, 1, 2, 5]
    assert chosen_cpus(2, "0-3\n") == [0, 1]
    with pytest.raises(CpuSetError, match="4 CPUs asked, and the host has 2 online"):
        chosen_cpus(4, "0-1")
    assert escaped_processes("10\t0\n11\t0-1\n12\t1\n", [0]) == ["11 (0-1)", "12 (1)"]


def test_an_initdb_option_the_builds_initdb_lacks_is_refused_before_any_cluster_is_made(
    local_target, local_transport, running_clusters
):
    build = archive_build_of("10")  # PostgreSQL 10: --wal-segsize came with 11
    spec = variant_trial(local_target, build, initdb_options=InitdbOptions(wal_segment_mb=64))
    with pytest.raises(InitdbOptionUnknown, match=r"this build's initdb has no --wal-segsize"):
        prepare_cluster(local_transport, spec)
    assert not local_transport.exists(f"{cluster_dir(spec)}/data/PG_VERSION")
