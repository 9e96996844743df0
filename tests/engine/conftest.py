"""Fixtures of the engine's cluster tests: clusters stopped after the test (the transports are in tests/sshd.py)."""

import posixpath
from collections.abc import Callable

import pytest

from workers.builds import install_build
from workers.cluster import Cluster
from workers.spec import BuildSpec
from workers.transport import Transport


@pytest.fixture
def new_cluster(running_clusters: list[Cluster]) -> Callable[[Transport, BuildSpec], Cluster]:
    """An initdb'd (not started) cluster of the build under the target's work dir; stopped after the test."""

    def make(transport: Transport, build: BuildSpec) -> Cluster:
        installed = install_build(transport, build)
        cluster = Cluster(transport, installed, posixpath.join(transport.host.work_dir, "clusters", build.name, "data"))
        running_clusters.append(cluster)
        cluster.initdb()
        return cluster

    return make
