"""A variant's WAL directory on a real cluster (issue 41, point 5): initdb -X puts each cluster's WAL in its own
directory under the variant's, pg_wal is a link there, the data is reset without copying the link, removing the
cluster removes its WAL; and a directory that is not the account's own, not there, or inside PGDATA is refused."""

import os
import posixpath
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine.test_variant_cluster import variant_trial
from tests.sshd import owned_temp_dir, run_user_account
from workers.initdb_options import InitdbOptions
from workers.spec import HostSpec
from workers.transport import Transport
from workers.trial_cluster import cluster_dir, prepare_cluster
from workers.wal_dir import UnsafeWalDir, check_wal_dir, cluster_wal_dir
from workers.work_dir_cleanup import ClusterOnHost, remove_clusters


@pytest.fixture
def wal_dir() -> Iterator[str]:
    """A directory of the account local commands run as, outside the work dir: "another partition"."""
    path = owned_temp_dir(run_user_account(), "benchdash-wal-partition-")
    os.chmod(path, 0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_variant_with_a_wal_dir_keeps_its_wal_there_and_loses_it_with_the_cluster(
    local_target: HostSpec, local_transport: Transport, installed_build, running_clusters, wal_dir: str
) -> None:
    spec = variant_trial(local_target, installed_build, initdb_options=InitdbOptions(wal_dir=wal_dir))
    cluster = prepare_cluster(local_transport, spec)
    running_clusters.append(cluster)

    own_wal = cluster_wal_dir(wal_dir, cluster.cluster_dir)
    pg_wal = Path(cluster.data_dir, "pg_wal")
    assert pg_wal.is_symlink() and os.readlink(pg_wal) == own_wal
    assert posixpath.dirname(own_wal) == wal_dir
    segments = [name for name in os.listdir(own_wal) if len(name) == 24]
    assert segments, os.listdir(own_wal)
    assert cluster.psql("SELECT count(*) FROM pgbench_branches").strip() == "1"
    # Its own cluster dir: a variant without the WAL dir is another cluster.
    assert cluster_dir(spec) != cluster_dir(variant_trial(local_target, installed_build))

    # A reset rebuilds the data in place (pgbench -i): no snapshot or pristine copy would carry the WAL along.
    reset = variant_trial(local_target, installed_build, initdb_options=spec.initdb_options, reset_data=True)
    again = prepare_cluster(local_transport, reset)
    assert again.psql("SELECT count(*) FROM pgbench_accounts").strip() == "100000"
    assert not again.has_snapshot() and os.readlink(pg_wal) == own_wal

    removed = remove_clusters(local_transport, [ClusterOnHost(cluster.cluster_dir, 21, 0)])
    assert removed == [cluster.cluster_dir]
    assert not os.path.exists(own_wal) and not os.path.exists(cluster.cluster_dir)
    assert os.path.isdir(wal_dir)  # the variant's directory stays: only the cluster's own goes


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda wal, data: "relative/wal", "not an absolute path"),
        (lambda wal, data: posixpath.join(data, "wal"), "inside the data directory (PGDATA)"),
        (lambda wal, data: posixpath.join(wal, "missing"), "it must exist"),
        (lambda wal, data: _chmod(wal, 0o777), "is writable by other accounts (mode 0777)"),
        (lambda wal, data: _chown_root(wal), "not to the account benchdash runs as"),
    ],
    ids=["relative", "under-pgdata", "missing", "writable-by-all", "root-s"],
)
def test_a_wal_dir_that_is_not_the_account_s_own_is_refused_saying_why(
    local_target: HostSpec, local_transport: Transport, wal_dir: str, make, reason: str
) -> None:
    data_dir = posixpath.join(local_target.work_dir, "clusters", "c", "data")
    path = make(wal_dir, data_dir)
    with pytest.raises(UnsafeWalDir, match=re.escape(reason)):
        check_wal_dir(local_transport, path, data_dir)


def test_a_wal_dir_of_the_account_outside_the_work_dir_passes(local_transport: Transport, wal_dir: str) -> None:
    check_wal_dir(local_transport, wal_dir, posixpath.join(local_transport.host.work_dir, "clusters", "c", "data"))


def _chmod(path: str, mode: int) -> str:
    os.chmod(path, mode)
    return path


def _chown_root(path: str) -> str:
    if os.geteuid() != 0 or run_user_account().pw_uid == 0:
        pytest.skip("needs root, with local commands run as another account")
    os.chown(path, 0, 0)
    return path
