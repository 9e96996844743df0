"""On the host `local` the benchmark clusters run as an account of their own: not the store's, not the app's."""

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest

from workers import local_transport
from workers.local_transport import DEFAULT_LOCAL_USER, LocalTransport, local_run_user
from workers.spec import HostSpec

STORE_USER = "benchdash"
ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "ROOT": str(ROOT)}


def test_a_local_cluster_s_server_runs_as_the_clusters_account(local_transport, installed_build, new_cluster):
    if os.geteuid() != 0:
        pytest.skip("the clusters' own account is reached with runuser, as root")
    cluster = new_cluster(local_transport, installed_build)
    cluster.start()
    pid = int(Path(cluster.data_dir, "postmaster.pid").read_text().split()[0])
    owner = pwd.getpwuid(os.stat(f"/proc/{pid}").st_uid).pw_name
    assert owner == DEFAULT_LOCAL_USER == local_run_user()
    assert owner not in (STORE_USER, pwd.getpwuid(os.geteuid()).pw_name)


def test_a_command_on_local_starts_where_the_clusters_account_may_be_whatever_the_worker_s_directory(
    local_transport, tmp_path, monkeypatch
):
    if os.geteuid() != 0:
        pytest.skip("the clusters' own account is reached with runuser, as root")
    closed = tmp_path / "root-only"
    closed.mkdir(mode=0o700)
    monkeypatch.chdir(closed)
    work_dir = local_transport.host.work_dir

    found = local_transport.run(["find", work_dir, "-maxdepth", "0"], check=False)

    assert (found.exit_status, found.text.strip(), found.stderr) == (0, work_dir, b"")
    assert local_transport.run(["pwd"]).text.strip() == "/"


def test_a_worker_that_is_not_root_reaches_another_account_with_sudo_and_its_own_directly(monkeypatch):
    monkeypatch.setattr(local_transport.os, "geteuid", lambda: 1000)
    host = HostSpec(name="local", work_dir="/w")
    assert LocalTransport(host, run_as="benchdash-clusters")._prefix() == [
        "sudo",
        "-n",
        "-u",
        "benchdash-clusters",
        "--",
    ]
    assert LocalTransport(host, run_as="")._prefix() == []


def as_account(user: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", user, "--", *argv], capture_output=True, text=True, cwd="/")


def test_the_app_s_account_may_act_as_the_clusters_account_and_as_no_other():
    """make run's worker runs as benchdash and reaches benchdash-clusters through set-up's sudo rule."""
    if os.geteuid() != 0 or not shutil.which("visudo"):
        pytest.skip("needs root and sudo (deploy/setup.sh installs it)")
    subprocess.run(["bash", "-c", "source deploy/lib.sh && ensure_cluster_sudo_rule"], cwd=ROOT, check=True, env=ENV)
    as_clusters = as_account(STORE_USER, "sudo", "-n", "-u", DEFAULT_LOCAL_USER, "--", "id", "-un")
    as_root = as_account(STORE_USER, "sudo", "-n", "-u", "root", "--", "id", "-un")
    back_to_the_app = as_account(DEFAULT_LOCAL_USER, "sudo", "-n", "-u", STORE_USER, "--", "id", "-un")
    assert (as_clusters.returncode, as_clusters.stdout.strip()) == (0, DEFAULT_LOCAL_USER)
    assert as_root.returncode != 0 and "password is required" in as_root.stderr
    assert back_to_the_app.returncode != 0 and back_to_the_app.stdout == ""
