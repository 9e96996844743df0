"""A study's log settings can never make the server write into a file it reads at start (issue 19).

A member who may queue a study once set logging_collector = on, log_directory = '.' and log_filename =
'postgresql.conf' with a crafted log_line_prefix: each log line landed in the server's configuration, and any
client reaching the port added lines of its own by sending a user name with line breaks in it. The log may now
only go to log/ (or below it) in the data directory, where the server reads nothing.
"""

import posixpath
import socket

import psycopg
import pytest

from workers.cluster import SERVER_FILE, SETTINGS_FILE, RefusedSetting
from workers.settings_rules import never_allowed, study_settings_refusals

FILES_THE_SERVER_READS = [
    "postgresql.conf",
    "postgresql.auto.conf",
    "pg_hba.conf",
    "pg_ident.conf",
    "standby.signal",
    "recovery.signal",
    "global/pg_control",
    "PG_VERSION",
    "postmaster.pid",
    "postmaster.opts",
]
NOT_THE_LOG_DIRECTORY = "the server's log may only go to its own log directory"
NOT_A_LOG_FILE_NAME = "give a plain file name of letters, digits, strftime escapes"
INJECTED = "archive_command = 'touch /tmp/benchdash-issue-19'"


@pytest.mark.parametrize("filename", FILES_THE_SERVER_READS)
@pytest.mark.parametrize("directory", [".", "", "./", "global", "pg_wal", "pg_tblspc", "log/.", "log/", "LOG"])
def test_the_log_directory_is_refused_unless_it_is_log_or_below(directory, filename):
    refusal = never_allowed("log_directory", directory)
    assert refusal is not None and str(refusal).startswith(f"log_directory = {directory}: {NOT_THE_LOG_DIRECTORY}")
    settings = {"logging_collector": "on", "log_directory": directory, "log_filename": filename}
    assert NOT_THE_LOG_DIRECTORY in " ".join(map(str, study_settings_refusals(17, settings)))


@pytest.mark.parametrize("filename", [name for name in FILES_THE_SERVER_READS if "/" in name])
def test_a_log_file_name_with_a_directory_is_refused(filename):
    assert "points outside the cluster" in str(never_allowed("log_filename", filename))


@pytest.mark.parametrize("filename", ["", ".", ".hidden", "a b.log", "x;id", "x\ny", "x\x00y", "\\x"])
def test_a_log_file_name_must_be_plain(filename):
    assert str(never_allowed("log_filename", filename)).startswith(f"log_filename = {filename}: {NOT_A_LOG_FILE_NAME}")


@pytest.mark.parametrize("directory", ["log", "log/benchdash", "log/a/b-c_d.e"])
def test_the_log_may_go_to_log_and_below(directory):
    assert never_allowed("log_directory", directory) is None
    assert never_allowed("log_filename", "postgresql-%Y-%m-%d_%H%M%S.log") is None
    assert never_allowed("LOG_FILENAME", "postgresql.conf") is None  # in log/: a file the server never reads


@pytest.mark.parametrize("directory", [".", "global", "pg_wal"])
def test_configure_refuses_a_log_among_the_servers_files(local_transport, installed_build, new_cluster, directory):
    cluster = new_cluster(local_transport, installed_build)
    settings = {"logging_collector": "on", "log_directory": directory, "log_filename": "postgresql.conf"}
    with pytest.raises(RefusedSetting, match=NOT_THE_LOG_DIRECTORY):
        cluster.configure(settings)
    settings_file = local_transport.get_bytes(posixpath.join(cluster.data_dir, SETTINGS_FILE))
    assert settings_file == b""


def _config_files(cluster) -> dict[str, str]:
    names = ["postgresql.conf", "postgresql.auto.conf", SETTINGS_FILE, SERVER_FILE, "pg_hba.conf", "pg_ident.conf"]
    paths = {name: posixpath.join(cluster.data_dir, name) for name in names}
    return {name: cluster.transport.get_bytes(path).decode("utf-8", "replace") for name, path in paths.items()}


def test_a_user_name_with_line_breaks_stays_in_the_log_and_a_restart_keeps_the_settings(
    local_transport, installed_build, new_cluster
):
    cluster = new_cluster(local_transport, installed_build)
    # The attack's settings, but for the directory, which the rules now hold to log/.
    settings = {
        "logging_collector": "on",
        "log_directory": "log",
        "log_filename": "postgresql.conf",
        "log_line_prefix": "# ",
    }
    cluster.configure(settings)
    cluster.start()
    before = cluster.show_all()
    user = f"x\n{INJECTED}\n#"
    with pytest.raises(psycopg.OperationalError, match="no pg_hba.conf entry"):
        psycopg.connect(host="127.0.0.1", port=cluster.port, user=user, password="wrong", dbname="postgres")
    cluster.stop()
    log = local_transport.get_bytes(posixpath.join(cluster.data_dir, "log", "postgresql.conf")).decode()
    # The server starts each further line of a message with a tab: in a config file, a setting all the same.
    assert f"\n\t{INJECTED}\n" in log
    assert [name for name, text in _config_files(cluster).items() if INJECTED in text or "issue-19" in text] == []
    cluster.start()
    after = cluster.show_all()
    # With archive_mode off the server shows archive_command as "(disabled)": its source tells where it came from.
    source = cluster.psql("SELECT source FROM pg_settings WHERE name = 'archive_command'")
    assert (source.strip(), after["log_directory"]) == ("default", "log")
    assert after == before


def test_lines_appended_to_postgresql_conf_never_beat_the_engines_own(local_transport, installed_build, new_cluster):
    """Before the rules held the log to log/, a log written into postgresql.conf came after the engine's
    include, and a later line wins: a logged `external_pid_file = ...` beat the engine's `external_pid_file = ''`.
    The engine now moves its include back to the end at every start."""
    cluster = new_cluster(local_transport, installed_build)
    conf_path = posixpath.join(cluster.data_dir, "postgresql.conf")
    stray = posixpath.join(cluster.cluster_dir, "stray.pid")
    appended = local_transport.get_bytes(conf_path) + f"\texternal_pid_file = '{stray}'\n\tport = 1".encode()
    local_transport.put_bytes(appended, conf_path, mode=0o600)
    cluster.start()
    shown = cluster.show_all()
    assert (shown["external_pid_file"], shown["port"]) == ("", str(cluster.port))
    assert not local_transport.exists(stray)
    lines = local_transport.get_bytes(conf_path).decode().splitlines()
    assert lines[-5:] == [
        "\tport = 1",
        "",
        "# added by benchdash",
        f"include_if_exists = '{SETTINGS_FILE}'",
        f"include = '{SERVER_FILE}'",
    ]


def test_a_server_whose_log_goes_to_the_collector_starts_on_another_port_when_its_own_is_taken(
    local_transport, installed_build, new_cluster
):
    """The server says its port is taken only in the collector's file, not in pg_ctl's log: the start still sees it
    and moves to another port. It failed before ("pg_ctl start failed"), pg_ctl's log holding only the hand-over: a
    restart whose port another test's server took meanwhile failed so in a fresh clone's run."""
    cluster = new_cluster(local_transport, installed_build)
    cluster.configure({"logging_collector": "on", "log_directory": "log", "log_filename": "server-%H.log"})
    with socket.create_server(("127.0.0.1", 0)) as taken:
        taken_port = cluster.port = taken.getsockname()[1]
        cluster.start()
        started_on = cluster.port
        cluster.stop()
    assert started_on != taken_port
    collected = cluster.server_log_tail().decode()
    assert "redirecting log output to logging collector process" in collected
    assert "could not bind IPv4 address" in collected and "Address already in use" in collected
