"""`manage.py add_source_build`: a source build registered, compiled on a host, its configure line and compiler
shown; the admin."""

import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from benchdash.inventory import host_facts
from benchdash.inventory.models import Build
from tests.factories import HostFactory
from tests.source_tree import LOCK_COUNTERS_PATCH, VERSION, patch_file, source_tarball
from workers.host_lock import host_lock
from workers.spec import HostSpec
from workers.transport import connect

pytestmark = pytest.mark.django_db


def add_source_build(*args: str) -> str:
    out = StringIO()
    call_command("add_source_build", *args, stdout=out)
    return out.getvalue()


def test_a_tarball_is_registered_with_its_version_patches_options_and_digest(tmp_path: Path) -> None:
    tarball = source_tarball(tmp_path)
    patch = patch_file(tmp_path, "lock-counters.patch", LOCK_COUNTERS_PATCH)
    add_source_build("fake-locks", "--tarball", str(tarball), "--patch", str(patch), "--configure=--debug CFLAGS=-O0")
    build = Build.objects.get(name="fake-locks")
    assert (build.kind, build.version, build.archive_path) == (Build.Kind.SOURCE, VERSION, str(tarball))
    assert build.patch_paths() == (str(patch),) and build.configure_flags == "--debug CFLAGS=-O0"
    assert len(build.source_digest) == 64 and build.configure_line == ""
    spec = build.spec()
    assert spec.patches == (str(patch),) and spec.source_digest == build.source_digest


def test_built_on_a_host_it_records_the_configure_line_and_compiler_and_the_builds_page_shows_them(
    client, local_target: HostSpec, tmp_path: Path
) -> None:
    HostFactory(name="local", address="", work_dir=local_target.work_dir)
    output = add_source_build("fake", "--tarball", str(source_tarball(tmp_path)), "--build-on", "local")
    build = Build.objects.get(name="fake")
    assert build.configure_line.startswith("./configure --prefix=") and build.source_digest[:16] in build.configure_line
    assert build.compiler and f"configure line: {build.configure_line}" in output
    page = client.get(reverse("inventory:builds")).content.decode()
    assert build.compiler in page and build.source_digest[:16] in page


def test_it_never_compiles_beside_another_installation_s_trial(local_target: HostSpec, tmp_path: Path) -> None:
    """A compile would load the host under the other installation's run: the command waits for the host-wide lock
    (benchdash/inventory/host_commands.py), then refuses to compile, the build registered, nothing run there."""
    host = HostFactory(name="local", address="", work_dir=local_target.work_dir)
    staging = "6f1d3a52-0000-4000-8000-000000000001"  # another installation sharing the host
    with (
        patch.object(host_facts, "COMMAND_LOCK_WAIT_S", 0),
        connect(host.whole_spec().for_installation(staging)) as other,
        host_lock(other),
        pytest.raises(CommandError, match=rf"busy with another benchdash installation \({staging}\): nothing was run"),
    ):
        add_source_build("fake", "--tarball", str(source_tarball(tmp_path)), "--build-on", "local")
    assert Build.objects.get(name="fake").configure_line == ""  # registered, never compiled
    assert not list(Path(host.installation_spec().work_dir).glob("builds/*"))


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["--configure=--with-x; touch /tmp/owned"], "is neither --option nor VARIABLE=value"),
        (["--configure=--prefix=/usr"], "is set by benchdash"),
        (["--patch", "/nonexistent/fix.patch"], "/nonexistent/fix.patch cannot be read"),
        (["--git", "https://git.example.org/pg.git", "--ref", "v1/../main"], "must be a branch, tag or commit"),
    ],
)
def test_bad_input_is_refused_with_a_sentence_and_nothing_is_registered(
    tmp_path: Path, args: list[str], refused: str
) -> None:
    source = [] if "--git" in args else ["--tarball", str(source_tarball(tmp_path))]
    with pytest.raises(CommandError) as raised:
        add_source_build("bad", *source, *args)
    assert refused in str(raised.value)
    assert not Build.objects.filter(name="bad").exists()


def test_a_source_whose_name_gives_no_version_needs_one(tmp_path: Path) -> None:
    tarball = source_tarball(tmp_path, name="snapshot.tar.gz")
    with pytest.raises(CommandError, match="give it"):
        add_source_build("snap", "--tarball", str(tarball))
    add_source_build("snap", "--tarball", str(tarball), "--pg-version", "9.6.24")
    assert Build.objects.get(name="snap").major == "9.6"


def admin_fields(tarball: Path, configure_flags: str) -> dict[str, str]:
    return {"name": "from-admin", "version": VERSION, "kind": "source", "archive_path": str(tarball),
            "configure_flags": configure_flags}  # fmt: skip


def test_the_admin_takes_a_source_builds_digest_and_refuses_options_that_are_not_options(
    admin_client, tmp_path: Path
) -> None:
    tarball = source_tarball(tmp_path)
    refused = admin_client.post(reverse("admin:inventory_build_add"), admin_fields(tarball, "--debug && id"))
    assert refused.status_code == 200 and "&#x27;&amp;&amp;&#x27; is neither --option" in refused.content.decode()
    assert not Build.objects.filter(name="from-admin").exists()
    saved = admin_client.post(reverse("admin:inventory_build_add"), admin_fields(tarball, "--debug"))
    assert saved.status_code == 302
    assert len(Build.objects.get(name="from-admin").source_digest) == 64


@pytest.fixture
def tarball_server(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server of tmp_path/served/, and the paths it was asked for."""
    served, asked = tmp_path / "served", []
    served.mkdir()
    source_tarball(served)

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(served), **kwargs)

        def log_message(self, *args: object) -> None:
            asked.append(self.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()


def test_a_tarball_url_is_downloaded_once_into_the_builds_dir(settings, tmp_path: Path, tarball_server) -> None:
    settings.BUILDS_DIR = tmp_path / "builds"
    url, asked = tarball_server
    add_source_build("by-url", "--tarball", f"{url}/fakepg-{VERSION}.tar.gz")
    add_source_build("by-url", "--tarball", f"{url}/fakepg-{VERSION}.tar.gz", "--configure=--debug")
    build = Build.objects.get(name="by-url")
    assert build.archive_path == str(tmp_path / "builds" / "sources" / f"fakepg-{VERSION}.tar.gz")
    assert build.source_url == f"{url}/fakepg-{VERSION}.tar.gz" and build.version == VERSION
    assert len(asked) == 1
    with pytest.raises(CommandError, match="cannot download .*404"):
        add_source_build("gone", "--tarball", f"{url}/postgresql-9.6.24.tar.bz2")
    assert not Build.objects.filter(name="gone").exists()
