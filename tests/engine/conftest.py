"""Fixtures of the engine's cluster tests: clusters stopped after the test (the transports are in tests/sshd.py)."""

import posixpath
import shutil
from collections.abc import Callable, Iterator

import pytest

from tests.sshd import local_work_dir
from workers.builds import install_build
from workers.cluster import Cluster
from workers.spec import BuildSpec
from workers.transport import Transport


class ClusterTemplates:
    """The session's initdb'd data directories on the local target, one per build, each copied into a test's new
    cluster: initdb takes seconds, a copy a fraction of one. A template is the first test's cluster right after its
    initdb (data directory and password file), so each copy is what initdb makes, with the same password."""

    def __init__(self) -> None:
        self.root = local_work_dir("benchdash-cluster-templates-")

    def served(self, transport: Transport) -> bool:
        """Only the local target: its account owns the templates."""
        return transport.host.is_local

    def template_dir(self, build: BuildSpec) -> str:
        return posixpath.join(self.root, build.name)

    def initdb(self, cluster: Cluster, build: BuildSpec) -> None:
        """The cluster as a fresh initdb leaves it: copied from the template, made by this initdb if there is none."""
        transport, template = cluster.transport, self.template_dir(build)
        if not self.served(transport):
            cluster.initdb()
        elif transport.exists(posixpath.join(template, "data", "PG_VERSION")):
            transport.run(["mkdir", "-p", posixpath.dirname(cluster.cluster_dir)])
            transport.run(["cp", "-a", template, cluster.cluster_dir])
        else:
            cluster.initdb()
            transport.run(["cp", "-a", cluster.cluster_dir, f"{template}.part"])
            transport.run(["mv", "-T", f"{template}.part", template])


@pytest.fixture(scope="session")
def cluster_templates() -> Iterator[ClusterTemplates]:
    templates = ClusterTemplates()
    yield templates
    shutil.rmtree(templates.root, ignore_errors=True)


@pytest.fixture
def new_cluster(
    running_clusters: list[Cluster], cluster_templates: ClusterTemplates
) -> Callable[[Transport, BuildSpec], Cluster]:
    """An initdb'd (not started) cluster of the build under the target's work dir; stopped after the test."""

    def make(transport: Transport, build: BuildSpec) -> Cluster:
        installed = install_build(transport, build)
        cluster = Cluster(transport, installed, posixpath.join(transport.host.work_dir, "clusters", build.name, "data"))
        running_clusters.append(cluster)
        cluster_templates.initdb(cluster, build)
        return cluster

    return make
