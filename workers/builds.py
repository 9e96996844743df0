"""Getting a PostgreSQL build onto a target, and finding the client tools (psql, pgbench) there.

An installed build is used where it is. An archive (see npm_archive.py) is uploaded once per target
and unpacked under <work_dir>/builds/<digest prefix>/, keyed by the archive's sha512, so a second
trial, study or worker finds it ready. The version always comes from `postgres -V`, never from
the build's label.

An archive build runs only while it is what was fetched: the archive's sha512 must be the one recorded
when it was fetched (BuildSpec.archive_integrity), on the worker and again on the target before it is
unpacked, and before every use the unpacked bin/ and lib/ must hold exactly the archive's files
(build_digest.py). The work dir they live in is private (work_dir.py), checked first.
"""

import hashlib
import posixpath
import re
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workers import build_digest, source_build
from workers.facts import split_sections
from workers.paths import unsafe_path_reason
from workers.spec import BuildSpec
from workers.transport import Transport
from workers.work_dir import RequiredFileMissing, check_installed_dir, ensure_private_work_dir

INSTALLED_MARKER = ".installed"
_SERVER_VERSION_RE = re.compile(r"\(PostgreSQL\)\s+(\d+(?:\.\d+)*(?:(?:beta|rc|devel)\d*)?)")
# libicuuc.so.60.2 -> libicuuc.so.60: the name the dynamic linker looks for (the soname).
_VERSIONED_LIBRARY_RE = re.compile(r"^(lib[^/]+\.so)\.(\d+)\.\d+(?:\.\d+)*$")
_DEBIAN_BIN_GLOB = "/usr/lib/postgresql/*/bin"


class BuildInstallError(Exception):
    """A build could not be put onto, or found on, a target."""


@dataclass(frozen=True)
class InstalledBuild:
    """A build ready on a target, with what its probe (probe_build) found there in one round trip."""

    bin_dir: str
    lib_dir: str
    version: str  # as `postgres -V` reports it: "15.14", "13.23", "18beta1"
    tools: frozenset[str] = frozenset()  # which of psql, pgbench and pg_config its bin dir holds
    configure: str | None = None  # how it was configured, as `pg_config --configure` says; None when it cannot say
    symbols: str | None = None  # what perf can name its functions with (symbols_text); None when it cannot say

    def tool(self, name: str) -> str:
        return posixpath.join(self.bin_dir, name)

    @property
    def major(self) -> int:
        return int(re.match(r"\d+", self.version).group())  # type: ignore[union-attr]


# Whether perf can name the functions of the server in $bin: "<symtab|stripped> <debug file there: yes|no> <build ID>",
# where a dbgsym or debuginfo package puts it by the build ID (/usr/lib/debug/.build-id/); nothing without readelf.
_SYMBOLS_SECTION = r"""
if command -v readelf >/dev/null 2>&1; then
  id=$(readelf -n "$bin/postgres" 2>/dev/null | sed -n 's/.*Build ID: *//p' | head -n 1)
  if readelf -S "$bin/postgres" 2>/dev/null | grep -q '[.]symtab'; then own=symtab; else own=stripped; fi
  debug=no
  if [ -n "$id" ]; then
    rest=${id#??}
    [ -e "/usr/lib/debug/.build-id/${id%"$rest"}/$rest.debug" ] && debug=yes
  fi
  echo "$own $debug $id"
fi
"""

# $1: the bin dir. What a trial asks of its build, in one round trip, each answer under a `@@ name` line
# (facts.split_sections): the server's version (a server that cannot say ends the probe, with its own message), the
# client tools there, `pg_config --configure`, and the server's symbols (_SYMBOLS_SECTION).
_PROBE_SCRIPT = (
    r"""
bin=$1
section() { printf '\n@@ %s\n' "$1"; }
section version
"$bin/postgres" -V || exit
section tools
for tool in psql pgbench pg_config; do [ -e "$bin/$tool" ] && printf '%s\n' "$tool"; done
section configure
if [ -e "$bin/pg_config" ] && configured=$("$bin/pg_config" --configure 2>/dev/null); then
  printf '%s\n' "$configured"
fi
section symbols
"""
    + _SYMBOLS_SECTION
)


def probe_build(transport: Transport, bin_dir: str, lib_dir: str) -> InstalledBuild:
    """The build in bin_dir as the target runs it (the module's checks of that dir come first: this runs its postgres).
    BuildInstallError when its postgres cannot say its version."""
    result = transport.run(["sh", "-c", _PROBE_SCRIPT, "sh", bin_dir], timeout=60, check=False)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()
        raise BuildInstallError(f"{bin_dir}/postgres -V failed on {transport.host.name}: {detail}")
    sections = split_sections(result.text)
    return InstalledBuild(
        bin_dir,
        lib_dir,
        parse_server_version(sections.get("version", "")),
        tools=frozenset(sections.get("tools", "").split()),
        configure=sections.get("configure", "")[:4000] or None,
        symbols=symbols_text(sections.get("symbols", "")),
    )


def symbols_text(output: str) -> str | None:
    """'stripped no a6ade789dd' -> 'stripped, no debug symbols for build ID a6ade789dd' (the ID a debug package
    is found by); 'symtab no ...' -> 'own symbol table'; 'stripped yes ...' -> 'debug symbols installed'."""
    fields = output.split()
    if len(fields) < 2:
        return None
    if fields[0] == "symtab":
        return "own symbol table"
    if fields[1] == "yes":
        return "debug symbols installed"
    return f"stripped, no debug symbols for build ID {fields[2]}" if len(fields) > 2 else "stripped, no build ID"


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
    if build.kind == "source":
        return _install_source(transport, build)
    raise BuildInstallError(f"build {build.name}: the worker cannot install a {build.kind!r} build")


def _install_source(transport: Transport, build: BuildSpec) -> InstalledBuild:
    """Compiled on the target once per digest of source + patches + options; used only while no other account may
    write its files."""
    ensure_private_work_dir(transport)
    try:
        root = source_build.install_source_build(transport, build)
    except source_build.SourceBuildError as error:
        raise BuildInstallError(str(error)) from error
    _fingerprint, writable = build_digest.target_fingerprint(transport, root)
    if writable:
        raise BuildInstallError(
            f"build {build.name} on {transport.host.name}: other accounts may write {', '.join(writable[:5])}"
        )
    return probe_build(transport, posixpath.join(root, "bin"), posixpath.join(root, "lib"))


def _use_installed(transport: Transport, build: BuildSpec) -> InstalledBuild:
    bin_dir = build.bin_dir.rstrip("/")
    if reason := unsafe_path_reason(f"build {build.name}: bin directory", bin_dir):
        raise BuildInstallError(reason)
    no_postgres = f"build {build.name}: no postgres in {bin_dir!r} on {transport.host.name}"
    if not bin_dir:
        raise BuildInstallError(no_postgres)
    try:
        check_installed_dir(transport, bin_dir, build.name, required="postgres")
    except RequiredFileMissing:
        raise BuildInstallError(no_postgres) from None
    return probe_build(transport, bin_dir, posixpath.join(posixpath.dirname(bin_dir), "lib"))


def _expected_digest(build: BuildSpec) -> str:
    """The archive's sha512 (hex) as recorded when it was fetched; the file on the worker must still have it."""
    if not build.archive_integrity:
        raise BuildInstallError(
            f"build {build.name}: no sha512 was recorded for its archive; fetch it with `manage.py fetch_build`"
        )
    expected = build_digest.sri_to_hex(build.archive_integrity)
    if archive_digest(build.archive_path) != expected:
        raise BuildInstallError(
            f"build {build.name}: the archive {build.archive_path} is not the one fetched (its sha512 differs "
            f"from the recorded one); refusing to install it"
        )
    return expected


def _native(root: str) -> tuple[str, str]:
    return posixpath.join(root, "package/native/bin"), posixpath.join(root, "package/native/lib")


# (host, port, install dir) -> the fingerprint of the copy this worker process last verified in full.
_verified: dict[tuple[str, int, str], str] = {}


def _install_archive(transport: Transport, build: BuildSpec) -> InstalledBuild:
    """Upload + unpack once per target; a finished install carries a marker file, and is used only while
    its bin/ and lib/ hold exactly the archive's files."""
    digest = _expected_digest(build)
    ensure_private_work_dir(transport)
    root = posixpath.join(transport.host.work_dir, "builds", digest[:16])
    if not transport.exists(posixpath.join(root, INSTALLED_MARKER)):
        _unpack_archive(transport, build, root, digest)
    verify_unpacked(transport, build, root, digest)
    return probe_build(transport, *_native(root))


def verify_unpacked(transport: Transport, build: BuildSpec, root: str, digest: str) -> None:
    """Refuse the install at root unless bin/ and lib/ hold exactly the archive's files (build_digest.py)."""
    native = posixpath.join(root, build_digest.NATIVE)
    key = (transport.host.address or transport.host.name, transport.host.port, root)
    fingerprint, writable = build_digest.target_fingerprint(transport, native)
    if writable:
        raise BuildInstallError(
            f"build {build.name} on {transport.host.name}: other accounts may write {', '.join(writable[:5])}"
        )
    if _verified.get(key) == fingerprint:
        return
    found = build_digest.target_content(transport, native)
    changes = build_digest.manifest_differences(expected_tree(build, digest), found)
    if changes:
        _verified.pop(key, None)
        raise BuildInstallError(
            f"build {build.name} on {transport.host.name} is not what was unpacked from its archive "
            f"({'; '.join(changes[:5])}): refusing to run it. Remove {root} to unpack it again."
        )
    _verified[key] = fingerprint


def expected_tree(build: BuildSpec, digest: str) -> build_digest.Manifest:
    """bin/ and lib/ as the archive unpacks them, with the soname links link_shared_libraries adds."""
    files = build_digest.archive_manifest(build.archive_path, digest)
    in_lib = [path.removeprefix("lib/") for path in files if path.startswith("lib/") and path.count("/") == 1]
    return build_digest.with_links(files, soname_links(in_lib))


def _unpack_archive(transport: Transport, build: BuildSpec, root: str, digest: str) -> None:
    """1. upload into a private staging dir, 2. check its sha512 there, 3. unpack, 4. link the libraries,
    5. check postgres runs, 6. rename into place.

    The rename is the commit point: a crash or a concurrent install never leaves a half-unpacked
    build under the final name.
    """
    staging = f"{root}.part-{uuid.uuid4().hex[:8]}"
    tarball = posixpath.join(staging, "archive.tgz")
    try:
        transport.run(["sh", "-c", 'umask 077 && mkdir -p -- "$1"', "sh", staging])
        transport.put_file(build.archive_path, tarball)
        uploaded = transport.run(["sha512sum", "--", tarball], timeout=300).text.split(" ", 1)[0]
        if uploaded != digest:
            raise BuildInstallError(f"build {build.name}: the archive arrived on {transport.host.name} changed")
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


def build_pgbench(transport: Transport, build: BuildSpec) -> str:
    """The build's own pgbench on this host, the build checked and installed there as for a server; BuildInstallError
    when it ships none (an npm archive holds no pgbench)."""
    installed = install_build(transport, build)
    pgbench = installed.tool("pgbench")
    if "pgbench" not in installed.tools:
        raise BuildInstallError(f"build {build.name} ships no pgbench on {transport.host.name}: {pgbench} is missing")
    return pgbench


def find_client_tool(transport: Transport, name: str, installed: InstalledBuild | None = None) -> str:
    """Where `name` (pgbench, psql) lives on the target.

    The build's own bin dir first (an installed build has them; archives do not), then the
    newest Debian /usr/lib/postgresql/N/bin, then the PATH.
    """
    if installed and name in installed.tools:
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
