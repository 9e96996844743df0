"""Who reaches a benchmark cluster: the target's account over the private socket, TCP clients with the password.

Real servers of Debian's PostgreSQL; a second local account (created when we are root) tries its way in.
"""

import os
import posixpath
import pwd
import stat
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.engine.test_runner import trial
from workers.builds import find_client_tool, install_build
from workers.cluster import Cluster
from workers.local_transport import LocalTransport
from workers.pg_conf import ClusterError, hba_lines, passfile_line
from workers.postmaster import socket_dir_for
from workers.runner import run_trial
from workers.transport import CommandResult, Transport, connect

OTHER_USER = "benchdash-other"


def test_no_pg_hba_rule_trusts_anyone():
    text = hba_lines("postgres", ["10.0.0.9", "samenet"], "benchdash")
    rules = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    assert [rule[-1] for rule in rules[1:]] == ["scram-sha-256"] * 4
    assert rules[0] == ["local", "all", "postgres", "peer", "map=benchdash"]
    assert [rule[3] for rule in rules[1:]] == ["127.0.0.1/32", "::1/128", "10.0.0.9/32", "samenet"]
    assert "trust" not in text


def test_a_passfile_line_escapes_what_libpq_would_split_on():
    assert passfile_line(5432, "postgres", r"a:b\c") == "*:5432:*:postgres:a\\:b\\\\c\n"


def test_a_socket_path_too_long_for_unix_sockets_goes_to_a_private_dir_in_tmp():
    assert socket_dir_for("/srv/bench/clusters/x") == "/srv/bench/clusters/x/socket"
    long_dir = "/srv/" + "b" * 100
    assert socket_dir_for(long_dir).startswith("/tmp/benchdash-")
    assert socket_dir_for(long_dir) == socket_dir_for(long_dir) != socket_dir_for(long_dir + "c")


@pytest.fixture
def started(local_transport: Transport, installed_build, running_clusters, cluster_templates) -> Cluster:
    installed = install_build(local_transport, installed_build)
    data_dir = posixpath.join(local_transport.host.work_dir, "clusters", "auth", "data")
    cluster = Cluster(local_transport, installed, data_dir, client_addresses=["127.0.0.2"])
    running_clusters.append(cluster)
    cluster_templates.initdb(cluster, installed_build)
    cluster.start()
    return cluster


def test_a_socket_directory_that_is_a_link_is_refused_and_no_server_starts(
    local_transport, installed_build, new_cluster
):
    cluster = new_cluster(local_transport, installed_build)
    local_transport.run(["rm", "-rf", cluster.socket_dir])
    local_transport.run(["ln", "-s", "/tmp", cluster.socket_dir])
    with pytest.raises(ClusterError, match="is not a private directory of the target's account"):
        cluster.start()
    assert not cluster.is_running()
    assert stat.S_IMODE(os.stat("/tmp").st_mode) == 0o1777


def psql_tcp(cluster: Cluster, env: dict[str, str] | None = None) -> CommandResult:
    psql = find_client_tool(cluster.transport, "psql", cluster.installed)
    argv = [psql, "-X", "-At", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", cluster.user, "-d", "postgres"]
    return cluster.transport.run([*argv, "-w", "-c", "SELECT current_user"], check=False, env=env)


def test_the_server_listens_on_a_socket_in_a_directory_only_its_account_enters(started):
    info = os.stat(started.socket_dir)
    assert stat.S_IMODE(info.st_mode) == 0o700
    assert Path(started.socket_dir, f".s.PGSQL.{started.port}").is_socket()
    assert started.psql("SELECT current_user;").strip() == "postgres"  # peer, through the ident map


def test_the_rules_in_force_trust_nobody(started):
    methods = started.psql("SELECT type, address, auth_method FROM pg_hba_file_rules ORDER BY line_number;")
    rows = [line.split("|") for line in methods.split()]
    assert {row[2] for row in rows} == {"peer", "scram-sha-256"}
    assert ["host", "127.0.0.2", "scram-sha-256"] in rows


def test_a_tcp_client_without_the_password_is_refused_and_with_it_let_in(started):
    refused = psql_tcp(started)
    passfile = posixpath.join(started.cluster_dir, "client.pgpass")
    started.transport.put_bytes(started.passfile_text().encode(), passfile, mode=0o600)
    allowed = psql_tcp(started, env={"PGPASSFILE": passfile})
    assert refused.exit_status != 0 and b"password" in refused.stderr
    assert (allowed.exit_status, allowed.text.strip()) == (0, "postgres")
    assert stat.S_IMODE(os.stat(started.password_path).st_mode) == 0o600


def other_account() -> str:
    """A second local account, which must reach no cluster (created when we are root)."""
    if os.geteuid() != 0:
        pytest.skip("creating a second local account needs root")
    try:
        pwd.getpwnam(OTHER_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--shell", "/bin/sh", OTHER_USER], check=True)
    return OTHER_USER


def test_a_second_local_account_reaches_neither_the_socket_nor_the_tcp_port(started):
    as_other = LocalTransport(started.transport.host, run_as=other_account())
    psql = find_client_tool(started.transport, "psql", started.installed)
    by_socket = as_other.run([psql, "-X", "-w", "-h", started.socket_dir, "-p", str(started.port)], check=False)
    password = as_other.run(["cat", started.password_path], check=False)
    by_tcp = psql_tcp(Cluster(as_other, started.installed, started.data_dir, started.port))
    assert by_socket.exit_status != 0 and b"Permission denied" in by_socket.stderr
    assert password.exit_status != 0 and password.stdout == b""
    assert by_tcp.exit_status != 0 and b"password" in by_tcp.stderr


@pytest.mark.slow
def test_pgbench_on_a_separate_client_host_runs_with_the_cluster_password(local_target, ssh_target, installed_build):
    db_host = replace(local_target, address="127.0.0.1")
    spec = replace(trial(db_host, installed_build), client_host=ssh_target, collect_sar=False)
    with connect(db_host) as db, connect(ssh_target) as client:
        outcome = run_trial(spec, db, client)
        leftover = client.run(["sh", "-c", "cat trials/*/pgpass", "sh"], cwd=ssh_target.work_dir, check=False)
    assert outcome.ok, outcome.error
    assert outcome.tps > 0
    assert "PGPASSWORD" not in outcome.command and "password" not in outcome.command
    assert leftover.stdout == b"", "the client's copy of the password is removed with the trial dir"


@pytest.mark.slow
def test_pgbench_on_another_host_reaches_the_db_host_local_at_the_worker_s_own_address(
    local_target, ssh_target, installed_build
):
    spec = replace(trial(local_target, installed_build), client_host=ssh_target, collect_sar=False)
    assert local_target.address == ""  # `local` has no address of record
    with connect(local_target) as db, connect(ssh_target) as client:
        outcome = run_trial(spec, db, client)
    assert outcome.ok, outcome.error
    assert outcome.tps > 0
    assert " -h 127.0.0.1 " in outcome.command  # the address the client host's sshd sees the worker at
