"""Getting a PostgreSQL build onto a target, and finding the client tools (psql, pgbench) there.

An installed build is used where it is. An archive (see npm_archive.py) is uploaded once per target
and unpacked under <work_dir>/builds/<digest prefix>/, keyed by the archive's sha512, so a second
trial, study or worker finds it ready. The version always comes from `postgres -V`, never from
the build's label.
"""

import hashlib
import posixpath
import re
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workers.spec import BuildSpec
from workers.transport import Transport

INSTALLED_MARKER = ".installed"
_SERVER_VERSION_RE = re.compile(r"\(PostgreSQL\)\s+(\d+(?:\.\d+)*(?:(?:beta|rc|devel)\d*)?)")
# libicuuc.so.60.2 -> libicuuc.so.60: the name the dynamic linker looks for (the soname).
_VERSIONED_LIBRARY_RE = re.compile(r"^(lib[^/]+\.so)\.(\d+)\.\d+(?:\.\d+)*$")
_DEBIAN_BIN_GLOB = "/usr/lib/postgresql/*/bin"


class BuildInstallError(Exception):
    """A build could not be put onto, or found on, a target."""


@dataclass(frozen=True)
class InstalledBuild:
    bin_dir: str
    lib_dir: str
    version: str  # as `postgres -V` reports it: "15.14", "13.23", "18beta1"

    def tool(self, name: str) -> str:
        return posixpath.join(self.bin_dir, name)

    @property
    def major(self) -> int:
        return int(re.match(r"\d+", self.version).group())  # type: ignore[union-attr]


def parse_server_version(output: str) -> str:
    """'postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)' -> '15.14'."""
    match = _SERVER_VERSION_RE.search(output)
    if not match:
        raise BuildInstallError(f"cannot read a PostgreSQL version from {output.strip()!r}")
    return match.group(1)


def server_version(transport: Transport, bin_dir: str) -> str:
    result = transport.run([posixpath.join(bin_dir, "postgres"), "-V"], timeout=60, check=False)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()
        raise BuildInstallError(f"{bin_dir}/postgres -V failed on {transport.host.name}: {detail}")
    return parse_server_version(result.text)


def soname_links(filenames: list[str]) -> dict[str, str]:
    """Links to make in an archive's lib/: {'libicuuc.so.60': 'libicuuc.so.60.2', ...}, existing names left alone."""
    present = set(filenames)
    links: dict[str, str] = {}
    for filename in sorted(filenames):
        match = _VERSIONED_LIBRARY_RE.match(filename)
        if match:
            link = f"{match.group(1)}.{match.group(2)}"
            if link not in present:
                links.setdefault(link, filename)
    return links


@lru_cache(maxsize=64)
def _archive_digest_cached(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha512()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def archive_digest(path: str) -> str:
    """The archive's sha512 (hex), computed once per file version: it names the install dir on targets."""
    try:
        stat = Path(path).stat()
    except OSError as error:
        raise BuildInstallError(f"archive {path} is not on this worker: {error}") from error
    return _archive_digest_cached(path, stat.st_size, stat.st_mtime_ns)


def install_build(transport: Transport, build: BuildSpec) -> InstalledBuild:
    if build.kind == "installed":
        return _use_installed(transport, build)
    if build.kind == "archive":
        return _install_archive(transport, build)
    raise BuildInstallError(f"build {build.name}: the worker cannot install a {build.kind!r} build")


def _use_installed(transport: Transport, build: BuildSpec) -> InstalledBuild:
    bin_dir = build.bin_dir.rstrip("/")
    if not bin_dir or not transport.exists(posixpath.join(bin_dir, "postgres")):
        raise BuildInstallError(f"build {build.name}: no postgres in {bin_dir!r} on {transport.host.name}")
    lib_dir = posixpath.join(posixpath.dirname(bin_dir), "lib")
    return InstalledBuild(bin_dir, lib_dir, server_version(transport, bin_dir))


def _archive_root(transport: Transport, build: BuildSpec) -> str:
    return posixpath.join(transport.host.work_dir, "builds", archive_digest(build.archive_path)[:16])


def _native(root: str) -> tuple[str, str]:
    return posixpath.join(root, "package/native/bin"), posixpath.join(root, "package/native/lib")


def _install_archive(transport: Transport, build: BuildSpec) -> InstalledBuild:
    """Upload + unpack once per target; a finished install carries a marker file and is reused."""
    root = _archive_root(transport, build)
    if not transport.exists(posixpath.join(root, INSTALLED_MARKER)):
        _unpack_archive(transport, build, root)
    bin_dir, lib_dir = _native(root)
    return InstalledBuild(bin_dir, lib_dir, server_version(transport, bin_dir))


def _unpack_archive(transport: Transport, build: BuildSpec, root: str) -> None:
    """1. unpack into a private staging dir, 2. link the libraries, 3. check postgres runs, 4. rename into place.

    The rename is the commit point: a crash or a concurrent install never leaves a half-unpacked
    build under the final name.
    """
    staging = f"{root}.part-{uuid.uuid4().hex[:8]}"
    tarball = posixpath.join(staging, "archive.tgz")
    try:
        transport.run(["mkdir", "-p", staging])
        transport.put_file(build.archive_path, tarball)
        transport.run(["tar", "-xzf", tarball, "-C", staging, "--no-same-owner"], timeout=900)
        transport.run(["rm", "-f", tarball])
        bin_dir, lib_dir = _native(staging)
        link_shared_libraries(transport, lib_dir)
        version = server_version(transport, bin_dir)
        transport.put_bytes(f"{version}\n".encode(), posixpath.join(staging, INSTALLED_MARKER))
        renamed = transport.run(["mv", "-T", staging, root], check=False)
        if not renamed.ok and not transport.exists(posixpath.join(root, INSTALLED_MARKER)):
            raise BuildInstallError(f"cannot move {staging} to {root}: {renamed.stderr.decode(errors='replace')}")
    finally:
        transport.run(["rm", "-rf", staging], check=False)


def link_shared_libraries(transport: Transport, lib_dir: str) -> dict[str, str]:
    """Make the `lib*.so.N` links that npm packages cannot carry; postgres needs them to start."""
    listing = transport.run(["find", lib_dir, "-maxdepth", "1", "-name", "lib*.so.*", "-printf", "%f\\n"])
    links = soname_links(listing.text.split())
    for link, target in links.items():
        transport.run(["ln", "-sfn", target, posixpath.join(lib_dir, link)])
    return links


def find_client_tool(transport: Transport, name: str, installed: InstalledBuild | None = None) -> str:
    """Where `name` (pgbench, psql) lives on the target.

    The build's own bin dir first (an installed build has them; archives do not), then the
    newest Debian /usr/lib/postgresql/N/bin, then the PATH.
    """
    if installed and transport.exists(installed.tool(name)):
        return installed.tool(name)
    # A fixed script; the tool name travels as an argument, never inside the script text.
    script = f'for p in {_DEBIAN_BIN_GLOB}/"$1"; do [ -x "$p" ] && echo "$p"; done; command -v "$1" || true'
    found = transport.run(["sh", "-c", script, "sh", name], timeout=60).text.split()
    debian = [path for path in found if path.startswith("/usr/lib/postgresql/")]
    if debian:
        return max(debian, key=lambda path: tuple(int(part) for part in re.findall(r"\d+", path.split("/")[4])))
    if found:
        return found[-1]
    raise BuildInstallError(f"no {name} on {transport.host.name}: install postgresql-client or postgresql-contrib")
