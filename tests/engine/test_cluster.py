"""A PostgreSQL cluster on a target: real initdb, real servers, real pgbench, locally and over SSH."""

import posixpath
import socket
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from workers.builds import install_build
from workers.cluster import INCLUDE_BLOCK, Cluster, ClusterError, RefusedSetting, draw_port
from workers.pg_conf import conf_quote, hba_address, listening_ports, unknown_settings
from workers.spec import BuildSpec, HostSpec, Prewarm, ScenarioSpec, TrialSpec
from workers.transport import connect
from workers.trial_cluster import cluster_for, prepare_cluster

# prepare_cluster's first cluster of a build copies the session's pristine data (tests/sshd.py); initdb and
# pgbench -i are the cluster tests' own (new_cluster, pgbench_init) and tests/engine/test_pristine.py's.
pytestmark = pytest.mark.shared_pristine_data

STUDY_SETTINGS = {"shared_buffers": "64MB", "work_mem": "4MB", "autovacuum": "off"}


def trial(host: HostSpec, build: BuildSpec, *, reset_data: bool = False, reset: str = "trial") -> TrialSpec:
    return TrialSpec(
        trial_id=1,
        study_id=7,
        db_host=host,
        client_host=host,
        build=build,
        scenario=ScenarioSpec(slug="update", builtin="tpcb-like", reset=reset, prewarm=Prewarm.TRIAL),
        clients=1,
        threads=1,
        duration_s=2,
        scale=1,
        pg_settings=dict(STUDY_SETTINGS),
        reset_data=reset_data,
        prewarm=True,
    )


def count_accounts(cluster: Cluster) -> int:
    return int(cluster.psql("SELECT count(*) FROM pgbench_accounts;"))


def test_it_quotes_a_value_as_one_line_of_data():
    assert conf_quote("it's\\a\nb") == "'it''s\\\\a\\nb'"


def test_it_calls_unknown_what_the_build_does_not_know_or_is_no_setting_name():
    known = {"shared_buffers", "work_mem"}
    names = ["Shared_Buffers", "work_mem", "pg_stat_statements.max", "x = 1", "work_mem\n"]
    assert unknown_settings(names, known) == ["pg_stat_statements.max", "x = 1", "work_mem\n"]


def test_it_finds_the_listening_ports_in_proc_net_tcp():
    text = (
        "  sl  local_address rem_address   st\n"
        "   0: 0100007F:D3D1 00000000:0000 0A 00000000:00000000\n"
        "   1: 0100007F:1F90 0100007F:9C40 01 00000000:00000000\n"
    )
    assert listening_ports(text) == {0xD3D1}


def test_it_gives_an_ip_its_host_mask_in_pg_hba():
    assert (hba_address("10.0.0.5"), hba_address("::1"), hba_address("client.lab")) == (
        "10.0.0.5/32",
        "::1/128",
        "client.lab",
    )


def test_the_study_settings_are_in_effect_after_start(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    cluster.configure(STUDY_SETTINGS)
    cluster.start()
    shown = cluster.show_all()
    assert {name: shown[name] for name in STUDY_SETTINGS} == STUDY_SETTINGS
    assert cluster.psql("SHOW shared_buffers;").strip() == "64MB"
    assert shown["port"] == str(cluster.port) and cluster.is_running()


def test_lines_appended_after_the_include_block_do_not_override_the_study_s_settings(
    local_transport, installed_build, new_cluster
):
    cluster = new_cluster(local_transport, installed_build)
    conf = posixpath.join(cluster.data_dir, "postgresql.conf")
    appended = local_transport.get_bytes(conf) + b"shared_buffers = 16MB\n"
    local_transport.put_bytes(appended, conf, mode=0o600)
    cluster.configure(STUDY_SETTINGS)
    cluster.start()
    text = local_transport.get_bytes(conf).decode()
    assert text.endswith(INCLUDE_BLOCK) and "shared_buffers = 16MB\n" in text
    assert cluster.psql("SHOW shared_buffers;").strip() == "64MB" and cluster.show_all()["port"] == str(cluster.port)


def test_a_drawn_port_that_listens_is_drawn_again_from_the_ports_that_do_not(
    local_transport, installed_build, new_cluster, monkeypatch
):
    with socket.create_server(("127.0.0.1", 0)) as drawn_first, socket.create_server(("127.0.0.1", 0)) as other:
        busy, elsewhere = drawn_first.getsockname()[1], other.getsockname()[1]
        draws: list[set[int]] = []

        def draw(avoid: set[int]) -> int:
            draws.append(set(avoid))
            return busy if len(draws) == 1 else draw_port(avoid)

        monkeypatch.setattr("workers.cluster.draw_port", draw)
        cluster = new_cluster(local_transport, installed_build)
        cluster.start()
    assert len(draws) == 2 and {busy, elsewhere} <= draws[1]  # the second draw knew every port that listened
    assert cluster.port not in (busy, elsewhere) and cluster.show_all()["port"] == str(cluster.port)


def test_it_refuses_an_unknown_setting_name_with_a_clear_message(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    with pytest.raises(RefusedSetting, match=r"PostgreSQL 1\d has no setting named shared_bufers"):
        cluster.configure({"shared_bufers": "64MB", "work_mem": "4MB"})


def test_a_hostile_value_is_written_as_data_and_runs_nothing(local_transport, installed_build, new_cluster):
    witness = f"/tmp/benchdash-pwned-{uuid.uuid4().hex}"
    value = f"%m' ; $(touch {witness}) `touch {witness}`\nlog_statement = 'all"
    cluster = new_cluster(local_transport, installed_build)
    cluster.configure({"log_line_prefix": value})
    cluster.start()
    assert cluster.psql("SHOW log_line_prefix;").rstrip("\n") == value
    assert cluster.psql("SHOW log_statement;").strip() == "none"
    assert not Path(witness).exists()


def test_pgbench_init_at_scale_1_loads_100000_accounts(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    cluster.start()
    cluster.pgbench_init(1, fillfactor=80)
    assert count_accounts(cluster) == 100000
    assert (
        cluster.psql("SELECT reloptions FROM pg_class WHERE relname = 'pgbench_accounts';").strip() == "{fillfactor=80}"
    )
    assert cluster.prewarm() > 0


def test_restoring_the_snapshot_gives_back_the_initial_data(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    cluster.start()
    cluster.pgbench_init(1)
    cluster.snapshot()
    cluster.psql("UPDATE pgbench_accounts SET abalance = 42 WHERE aid <= 10;")
    cluster.restore_snapshot()
    assert cluster.is_running()
    assert cluster.psql("SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0;").strip() == "0"


def test_one_command_reads_the_marker_and_whether_the_data_and_the_snapshot_are_there(
    local_transport, installed_build, new_cluster
):
    cluster = new_cluster(local_transport, installed_build)
    made = cluster.data_state()
    cluster.write_marker({"study_id": 3})
    local_transport.run(["cp", "-a", cluster.data_dir, cluster.snapshot_dir])
    marked = cluster.data_state()
    local_transport.put_bytes(b"{not json", f"{cluster.cluster_dir}/data.json")
    local_transport.run(["rm", "-rf", cluster.data_dir])
    garbled = cluster.data_state()
    assert (made.marker, made.has_data, made.has_snapshot) == ({}, True, False)
    assert (marked.marker, marked.has_data, marked.has_snapshot) == ({"study_id": 3}, True, True)
    assert (garbled.marker, garbled.has_data, garbled.has_snapshot) == ({}, False, True)


def test_a_server_that_cannot_start_says_why(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    # configure refuses such a value (test_cluster_settings.py): written around it, as a stale file could be.
    local_transport.put_bytes(b"shared_buffers = 'not a size'\n", posixpath.join(cluster.data_dir, "benchdash.conf"))
    with pytest.raises(ClusterError, match=r"(?s)pg_ctl start failed.*server log.*shared_buffers"):
        cluster.start()


def test_an_archive_build_of_another_major_starts_and_reports_it(local_transport, archive_build, new_cluster):
    cluster = new_cluster(local_transport, archive_build)
    cluster.configure(STUDY_SETTINGS)
    cluster.start()
    version = local_transport.run([cluster.installed.tool("postgres"), "-V"]).text
    major = archive_build.version.split(".")[0]
    assert version.startswith(f"postgres (PostgreSQL) {major}.")
    assert cluster.psql("SHOW server_version_num;").strip()[:2] == major
    cluster.pgbench_init(1)
    assert count_accounts(cluster) == 100000


def test_prepare_cluster_reuses_the_data_until_a_reset_is_asked(
    local_target, local_transport, installed_build, running_clusters
):
    first = prepare_cluster(local_transport, trial(local_target, installed_build))
    running_clusters.append(first)
    first.psql("CREATE TABLE survivor (id int);")
    again = prepare_cluster(local_transport, trial(local_target, installed_build))
    survived = again.psql("SELECT to_regclass('survivor') IS NOT NULL;").strip()
    reset = prepare_cluster(local_transport, trial(local_target, installed_build, reset_data=True))
    assert (survived, reset.psql("SELECT to_regclass('survivor') IS NOT NULL;").strip()) == ("t", "f")
    assert (count_accounts(reset), reset.show_all()["shared_buffers"]) == (100000, "64MB")


def test_prepare_cluster_can_reset_by_running_pgbench_init_again(
    local_target, local_transport, installed_build, running_clusters
):
    first = prepare_cluster(local_transport, trial(local_target, installed_build, reset="once"), reset_method="init")
    running_clusters.append(first)
    first.psql("UPDATE pgbench_accounts SET abalance = 1;")
    reset = prepare_cluster(local_transport, trial(local_target, installed_build, reset_data=True), reset_method="init")
    assert reset.psql("SELECT sum(abalance) FROM pgbench_accounts;").strip() == "0"
    assert not reset.has_snapshot()


def test_prepare_cluster_rebuilds_the_data_of_another_study(
    local_target, local_transport, installed_build, running_clusters
):
    first = prepare_cluster(local_transport, trial(local_target, installed_build))
    running_clusters.append(first)
    first.psql("CREATE TABLE survivor (id int);")
    other_study = trial(local_target, installed_build)
    other = prepare_cluster(local_transport, TrialSpec(**{**other_study.__dict__, "study_id": 8}))
    assert other.psql("SELECT to_regclass('survivor') IS NOT NULL;").strip() == "f"
    assert other.read_marker()["study_id"] == 8


def test_prepare_cluster_works_over_ssh_with_an_uploaded_archive(ssh_target, archive_build, running_clusters):
    with connect(ssh_target) as transport:
        cluster = prepare_cluster(transport, trial(ssh_target, archive_build))
        running_clusters.append(cluster)
        assert cluster.installed.bin_dir.startswith(f"{ssh_target.work_dir}/builds/")
        assert (count_accounts(cluster), cluster.show_all()["work_mem"]) == (100000, "4MB")
        assert b"database system is ready to accept connections" in cluster.server_log_tail()
        cluster.stop()
        assert not cluster.is_running()


def test_prepare_cluster_stops_the_servers_earlier_trials_left_running(
    local_target, local_transport, installed_build, archive_build, new_cluster, running_clusters
):
    leftover = new_cluster(local_transport, archive_build)
    leftover.start()
    cluster = prepare_cluster(local_transport, trial(local_target, installed_build))
    running_clusters.append(cluster)
    assert (leftover.is_running(), cluster.is_running()) == (False, True)


def test_a_pgbench_client_on_another_host_gets_an_address_to_connect_to(local_target, installed_build):
    db_host = HostSpec(name="db1", address="10.0.0.5", work_dir="/srv/bench")
    client_host = HostSpec(name="client1", address="10.0.0.9")
    spec = TrialSpec(**{**trial(db_host, installed_build).__dict__, "client_host": client_host})
    with connect(local_target) as transport:
        cluster = cluster_for(transport, spec, install_build(transport, installed_build))
    assert (cluster.listen_addresses, cluster.client_addresses) == (["127.0.0.1", "10.0.0.5"], ["10.0.0.9"])
    assert cluster.data_dir == f"/srv/bench/clusters/{installed_build.name}-update-s1-f100/data"


def started_at(cluster: Cluster) -> str:
    return cluster.psql("SELECT pg_postmaster_start_time();").strip()


def test_prepare_cluster_takes_over_a_running_server_only_with_the_same_settings(
    local_target, local_transport, installed_build, running_clusters
):
    first = prepare_cluster(local_transport, trial(local_target, installed_build))
    running_clusters.append(first)
    first_start = started_at(first)
    same = prepare_cluster(local_transport, trial(local_target, installed_build))
    same_start = started_at(same)
    changed_settings = {**STUDY_SETTINGS, "work_mem": "8MB"}
    changed_spec = replace(trial(local_target, installed_build), pg_settings=changed_settings)
    changed = prepare_cluster(local_transport, changed_spec)
    assert (same.port, same_start) == (first.port, first_start)
    assert started_at(changed) != first_start
    assert changed.psql("SHOW work_mem;").strip() == "8MB"


def test_prepare_cluster_never_takes_over_a_server_when_a_reset_is_asked(
    local_target, local_transport, installed_build, running_clusters
):
    first = prepare_cluster(local_transport, trial(local_target, installed_build))
    running_clusters.append(first)
    first.psql("UPDATE pgbench_accounts SET abalance = 1;")
    first_start = started_at(first)
    reset = prepare_cluster(local_transport, trial(local_target, installed_build, reset_data=True))
    assert started_at(reset) != first_start
    assert reset.psql("SELECT sum(abalance) FROM pgbench_accounts;").strip() == "0"


def test_stopping_a_server_that_does_not_run_is_quiet(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    cluster.stop()
    cluster.start()
    cluster.stop()
    assert cluster.is_running() is False


LOGGED = {**STUDY_SETTINGS, "log_statement": "all"}


def statements(cluster: Cluster) -> list[str]:
    """What the server ran, in order, from its log (log_statement = all)."""
    log = cluster.server_log_tail(5000).decode("utf-8", "replace")
    return [line.split("statement: ", 1)[1].strip() for line in log.splitlines() if "statement: " in line]


def test_after_a_run_it_checkpoints_then_vacuums_as_seed_001_orders_it(local_transport, installed_build, new_cluster):
    # 「1回測定するたびにcheck pointとvacuumを実施する」
    cluster = new_cluster(local_transport, installed_build)
    cluster.configure(LOGGED)
    cluster.start()
    cluster.checkpoint_vacuum()
    assert [statement for statement in statements(cluster) if statement in ("CHECKPOINT;", "VACUUM;")] == [
        "CHECKPOINT;",
        "VACUUM;",
    ]


def test_a_rebuild_with_maintenance_runs_vacuum_full_checkpoint_analyze_after_pgbench_i(
    local_target, local_transport, installed_build, running_clusters
):
    # 「各測定周の最後に検証データの再作成と vacuum full, check point, ANALYZEを実施」
    spec = trial(local_target, installed_build, reset="round", reset_data=True)
    spec = replace(spec, pg_settings=LOGGED, scenario=replace(spec.scenario, reset_vacuum_full=True))
    cluster = prepare_cluster(local_transport, spec, reset_method="init")
    running_clusters.append(cluster)
    ran = statements(cluster)
    maintenance = [statement for statement in ran if statement in ("VACUUM FULL;", "CHECKPOINT;", "ANALYZE;")]
    assert maintenance == ["VACUUM FULL;", "CHECKPOINT;", "ANALYZE;"]
    assert ran.index("VACUUM FULL;") > max(
        i for i, statement in enumerate(ran) if "pgbench_accounts" in statement and statement.startswith("copy")
    )
    again = prepare_cluster(local_transport, spec, reset_method="init")  # the next round rebuilds it all again
    assert [s for s in statements(again) if s == "VACUUM FULL;"] == ["VACUUM FULL;"] * 2


def test_a_round_prewarm_warms_where_the_plan_says_and_when_the_server_starts_cold(
    local_target, local_transport, installed_build, running_clusters
):
    spec = trial(local_target, installed_build, reset="once")
    spec = replace(spec, pg_settings=LOGGED, scenario=replace(spec.scenario, prewarm=Prewarm.ROUND))

    def prewarms(cluster: Cluster) -> int:
        return sum("pg_prewarm('pgbench_accounts')" in statement for statement in statements(cluster))

    first = prepare_cluster(local_transport, replace(spec, prewarm=True))  # the round's first trial
    running_clusters.append(first)
    taken_over = prepare_cluster(local_transport, replace(spec, prewarm=False))  # later in the round, server kept
    assert (prewarms(first), prewarms(taken_over)) == (1, 1)
    taken_over.stop()
    cold = prepare_cluster(local_transport, replace(spec, prewarm=False))  # the server had to start again
    assert prewarms(cold) == 2
    unwarmed = replace(spec, prewarm=False, scenario=replace(spec.scenario, prewarm=Prewarm.NONE))
    cold.stop()
    assert prewarms(prepare_cluster(local_transport, unwarmed)) == 2  # a procedure without prewarm never warms
