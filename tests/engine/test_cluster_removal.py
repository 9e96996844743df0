"""Removing a study's clusters from a real target: the running server is stopped, the dir goes, builds stay."""

import os
import posixpath
from collections.abc import Callable

import pytest

from tests.sshd import process_is_gone
from workers.builds import install_build
from workers.cluster import Cluster
from workers.spec import BuildSpec
from workers.transport import Transport
from workers.work_dir_cleanup import clusters_on_host, remove_clusters, work_dir_usage

MIB = 1024 * 1024


@pytest.fixture
def study_cluster(
    running_clusters: list[Cluster], cluster_templates
) -> Callable[[Transport, BuildSpec, str, int | None], Cluster]:
    """A cluster under <work_dir>/clusters/<name> with pgbench data and a snapshot, marked for study_id (None: none)."""

    def make(transport: Transport, build: BuildSpec, name: str, study_id: int | None) -> Cluster:
        installed = install_build(transport, build)
        data_dir = posixpath.join(transport.host.work_dir, "clusters", name, "data")
        cluster = Cluster(transport, installed, data_dir)
        running_clusters.append(cluster)
        cluster_templates.initdb(cluster, build)
        cluster.configure({})
        cluster.start()
        cluster.pgbench_init(2)
        cluster.snapshot()
        if study_id is not None:
            cluster.write_marker({"study_id": study_id, "build": build.name})
        return cluster

    return make


def _postmaster_pid(cluster: Cluster) -> int:
    return int(cluster.transport.get_bytes(posixpath.join(cluster.data_dir, "postmaster.pid")).split()[0])


def test_a_study_clusters_go_with_their_running_server_and_the_others_and_builds_stay(
    any_transport: Transport, archive_build: BuildSpec, study_cluster: Callable
) -> None:
    transport = any_transport
    ours = study_cluster(transport, archive_build, "b-scenario-s2-f100", 41)
    other = study_cluster(transport, archive_build, "b-other-s2-f100", 42)
    pid = _postmaster_pid(ours)
    before = work_dir_usage(transport)
    assert before["snapshots"] > 2 * 20 * MIB  # two snapshots of scale-2 data (about 30 MiB each)
    assert before["clusters"] > 2 * 20 * MIB and before["builds"] > 10 * MIB

    # The SSH target is shared with the session's other tests: only this test's clusters are looked at.
    found = {cluster.path: cluster for cluster in clusters_on_host(transport)}
    assert {path: found[path].study_id for path in (ours.cluster_dir, other.cluster_dir)} == {
        ours.cluster_dir: 41,
        other.cluster_dir: 42,
    }
    assert found[ours.cluster_dir].size_bytes > 20 * MIB

    removed = remove_clusters(transport, [found[ours.cluster_dir]])

    assert removed == [ours.cluster_dir]
    assert process_is_gone(pid)  # the target is this machine, over SSH too
    assert not transport.exists(ours.cluster_dir)
    assert other.is_running() and transport.exists(other.snapshot_dir)
    after = work_dir_usage(transport)
    assert after["builds"] == before["builds"]
    assert after["snapshots"] < before["snapshots"] - 20 * MIB
    assert after["clusters"] < before["clusters"] - 20 * MIB


def test_a_cluster_with_no_marker_is_listed_without_a_study_and_a_stale_pid_file_stops_nothing(
    local_transport: Transport, archive_build: BuildSpec, study_cluster: Callable
) -> None:
    cut_short = study_cluster(local_transport, archive_build, "cut-short", None)
    cut_short.stop()
    # A postmaster.pid left by a crash whose PID is now this test's own process: it must survive.
    stale = f"{os.getpid()}\n{cut_short.data_dir}\n"
    local_transport.put_bytes(stale.encode(), posixpath.join(cut_short.data_dir, "postmaster.pid"))

    (listed,) = clusters_on_host(local_transport)
    assert (listed.path, listed.study_id) == (cut_short.cluster_dir, None)
    assert remove_clusters(local_transport, [listed]) == [cut_short.cluster_dir]
    assert not local_transport.exists(cut_short.cluster_dir)
    assert clusters_on_host(local_transport) == []
    assert work_dir_usage(local_transport)["clusters"] <= 4096  # the empty clusters dir itself
