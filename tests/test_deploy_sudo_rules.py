"""Checkouts with other clusters' accounts on one machine each keep their own sudo rule (deploy/lib.sh)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.deploy_services import ROOT, STORE_USER, ensure_account

pytestmark = [pytest.mark.servers]
CLUSTER_USERS = ["bdtest-clusters-1", "bdtest-clusters-2"]
OLD_SHARED_RULE = Path("/etc/sudoers.d/benchdash")


def set_up_rule(cluster_user: str) -> None:
    env = {**os.environ, "ROOT": str(ROOT), "BENCHDASH_LOCAL_USER": cluster_user}
    subprocess.run(["bash", "-c", "source deploy/lib.sh && ensure_cluster_sudo_rule"], cwd=ROOT, env=env, check=True)


def run_user_becomes(cluster_user: str) -> str:
    argv = ["runuser", "-u", STORE_USER, "--", "sudo", "-n", "-u", cluster_user, "--", "id", "-un"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/")
    return done.stdout.strip() or done.stderr.strip()


def test_a_second_clusters_account_leaves_the_first_one_s_rule_in_place():
    if os.geteuid() != 0 or not shutil.which("visudo"):
        pytest.skip("needs root and sudo (deploy/setup.sh installs it)")
    shared_before = OLD_SHARED_RULE.read_text() if OLD_SHARED_RULE.exists() else None
    for user in CLUSTER_USERS:
        ensure_account(user)
    files = [Path(f"/etc/sudoers.d/benchdash-{STORE_USER}-{user}") for user in CLUSTER_USERS]
    try:
        for user in CLUSTER_USERS:
            set_up_rule(user)
        reached = [run_user_becomes(user) for user in CLUSTER_USERS]
        assert reached == CLUSTER_USERS
        assert [path.read_text() for path in files] == [
            f"{STORE_USER} ALL=({user}) NOPASSWD: ALL\n" for user in CLUSTER_USERS
        ]
        # another checkout's rule in the file older set-ups shared is none of these set-ups' to remove
        assert (OLD_SHARED_RULE.read_text() if OLD_SHARED_RULE.exists() else None) == shared_before
    finally:
        for path in files:
            path.unlink(missing_ok=True)
