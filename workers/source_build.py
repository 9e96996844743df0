"""A PostgreSQL build compiled from source on the target: a tarball on the worker, or a git ref, with patches and
configure options.

It is compiled on each target that runs it (not once per host kind): the binaries then match the target's own libc,
libraries and compiler, nothing is copied between hosts, and the transport a trial already holds is all it needs.
The result is cached on the target under <work_dir>/builds/src-<digest prefix>/, the digest being that of the
source, the patches and the configure options (source_digest), so a second trial, study or worker finds it ready,
and a changed patch or option is a new build. Steps (compile_on_target): upload or clone, unpack, patch,
configure, make, make install into a staging dir, then one rename; a step that fails says which, with the tail of
its log. The configure line as run and the compiler's `--version` are written beside the build (.build-info).

Every value from a user travels as an argument of a fixed script, never inside a shell string.
"""

import hashlib
import json
import posixpath
import re
import shlex
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from workers.spec import BuildSpec
from workers.transport import Transport

MARKER = ".installed"
BUILD_INFO = ".build-info"
# contrib modules a scenario may need (pg_prewarm for prewarm), built where the tree has them.
CONTRIB = ("pg_prewarm",)
LOG_TAIL_LINES = 40
# $1 the log, $2 the directory, then the command: its output goes to the log, never into a shell string.
_STEP_SCRIPT = 'log=$1; dir=$2; shift 2; printf "+ %s\\n" "$*" >>"$log"; cd -- "$dir" && exec "$@" >>"$log" 2>&1'
_OPTION_RE = re.compile(r"^(--[a-z][a-z0-9-]*(=.*)?|[A-Z_][A-Z0-9_]*=.*)$", re.DOTALL)
_REFUSED_OPTIONS = ("--prefix", "--exec-prefix", "--srcdir", "--cache-file")
_GIT_REF_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/+-]*$")
_GIT_URL_RE = re.compile(r"^(https?://|git://|ssh://|file://|/)[^\s]+$")


class SourceBuildError(Exception):
    """A source build is refused, or a step of compiling it failed."""


@dataclass(frozen=True)
class SourceBuildInfo:
    """What .build-info records: the digest, the configure line as run, the compiler, and the source itself."""

    digest: str
    configure_line: str
    compiler: str
    source: str  # the tarball's sha256, or the commit a git ref resolved to


def parse_configure_options(text: str) -> list[str]:
    """'--without-icu CFLAGS="-O2 -g"' -> ['--without-icu', 'CFLAGS=-O2 -g']: options and VAR=value only.

    Raises ValueError with a sentence: a word that is neither (a command slipped in after ';'), or an option
    benchdash sets itself (--prefix: the build goes to its own cache dir)."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"configure options {text!r} cannot be read: {error}") from None
    for word in words:
        if not _OPTION_RE.match(word):
            raise ValueError(f"configure option {word!r} is neither --option nor VARIABLE=value")
        if word.split("=", 1)[0] in _REFUSED_OPTIONS:
            raise ValueError(f"configure option {word!r} is set by benchdash (the build has its own directory)")
    return words


def git_source_problem(url: str, ref: str) -> str | None:
    """Why a git repository URL and ref are refused, or None."""
    if not _GIT_URL_RE.match(url):
        return f"git URL {url!r} must start with https://, http://, git://, ssh://, file:// or / and hold no spaces"
    if not _GIT_REF_RE.match(ref) or ".." in ref:
        return f"git ref {ref!r} must be a branch, tag or commit: letters, digits, . _ / + -, not starting with -"
    return None


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as error:
        raise SourceBuildError(f"{path} cannot be read on this worker: {error}") from error
    return digest.hexdigest()


def source_digest(build: BuildSpec) -> str:
    """sha256 of the source (the tarball's content, or the git URL and ref), each patch's content in order, and the
    configure options: the name of the build's cache dir on every target."""
    source = (
        f"git {build.source_url} {build.git_ref}" if build.git_ref else f"tarball {file_sha256(build.archive_path)}"
    )
    identity = {
        "source": source,
        "patches": [file_sha256(path) for path in build.patches],
        "configure": parse_configure_options(build.configure_flags),
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def source_problem(build: BuildSpec) -> str | None:
    """Why the build cannot be compiled as it is described (nothing read but its own fields), or None."""
    if build.git_ref:
        if problem := git_source_problem(build.source_url, build.git_ref):
            return problem
    elif not build.archive_path:
        return "a source build needs a tarball on the worker, or a git URL and ref"
    try:
        parse_configure_options(build.configure_flags)
    except ValueError as error:
        return str(error)
    return None


def build_root(transport: Transport, digest: str) -> str:
    return posixpath.join(transport.host.work_dir, "builds", f"src-{digest[:16]}")


def checked_digest(build: BuildSpec) -> str:
    """The digest as computed now; it must be the one recorded when the build was registered."""
    if problem := source_problem(build):
        raise SourceBuildError(f"build {build.name}: {problem}")
    digest = source_digest(build)
    if build.source_digest and digest != build.source_digest:
        raise SourceBuildError(
            f"build {build.name}: its source, patches or options are not those registered (their digest differs); "
            f"refusing to build it. Register it again if the change is wanted."
        )
    return digest


def install_source_build(transport: Transport, build: BuildSpec) -> str:
    """The build's install root on the target (bin/, lib/ in it), compiled first unless a finished one is there."""
    digest = checked_digest(build)
    root = build_root(transport, digest)
    marker = posixpath.join(root, MARKER)
    if not transport.exists(marker) or transport.get_bytes(marker).decode().strip() != digest:
        compile_on_target(transport, build, root, digest)
    return root


def read_build_info(transport: Transport, root: str) -> SourceBuildInfo:
    return SourceBuildInfo(**json.loads(transport.get_bytes(posixpath.join(root, BUILD_INFO))))


class _Compile:
    """One compile in a private staging dir beside the final root; the rename into place is the commit point, so a
    crash or a concurrent compile never leaves a half-built tree under the final name."""

    def __init__(self, transport: Transport, build: BuildSpec, root: str) -> None:
        self.transport, self.build, self.root = transport, build, root
        self.staging = f"{root}.part-{uuid.uuid4().hex[:8]}"
        self.src = posixpath.join(self.staging, "src")
        self.log = posixpath.join(self.staging, "build.log")
        self.failed_log = f"{root}.failed.log"

    def step(self, what: str, argv: Sequence[str], *, directory: str = "", timeout: float = 900) -> None:
        script = ["sh", "-c", _STEP_SCRIPT, "sh", self.log, directory or self.src, *argv]
        result = self.transport.run_long(script, name="source-build", timeout=timeout, check=False)
        if not result.ok:
            self.transport.run(["cp", "--", self.log, self.failed_log], check=False)
            tail = self.transport.run(["tail", "-n", str(LOG_TAIL_LINES), self.log], check=False).text.rstrip()
            raise SourceBuildError(
                f"build {self.build.name} on {self.transport.host.name}: {what} failed (exit {result.exit_status}); "
                f"full log {self.failed_log}; its last lines:\n{tail}"
            )

    def fetch_source(self) -> str:
        """Unpack the tarball, or clone the ref, into src/; returns what the source is (sha256 or commit)."""
        self.transport.run(["mkdir", "-p", "--", self.src, posixpath.join(self.staging, "patches")])
        if self.build.git_ref:
            clone = ["git", "clone", "--quiet", "--no-checkout", "--", self.build.source_url, self.src]
            self.step("git clone", clone, directory=self.staging)
            self.step(
                f"git checkout {self.build.git_ref}", ["git", "checkout", "--quiet", "--detach", self.build.git_ref]
            )
            return self.transport.run(["git", "-C", self.src, "rev-parse", "HEAD"]).text.strip()
        tarball = posixpath.join(self.staging, "source.tar")
        self.transport.put_file(self.build.archive_path, tarball)
        uploaded = self.transport.run(["sha256sum", "--", tarball], timeout=300).text.split(" ", 1)[0]
        if uploaded != file_sha256(self.build.archive_path):
            raise SourceBuildError(
                f"build {self.build.name}: the tarball arrived on {self.transport.host.name} changed"
            )
        self.step("unpacking the tarball", ["tar", "-xf", tarball, "--strip-components=1", "--no-same-owner"])
        self.transport.run(["rm", "-f", "--", tarball])
        return uploaded

    def apply_patches(self) -> None:
        for number, path in enumerate(self.build.patches, start=1):
            name = f"{number:02d}-{Path(path).name}"
            remote = posixpath.join(self.staging, "patches", name)
            self.transport.put_file(path, remote)
            self.step(f"patch {name}", ["patch", "-p1", "--batch", "--forward", "-i", remote])

    def compiler_version(self, options: list[str]) -> str:
        compiler = next((word.split("=", 1)[1] for word in options if word.startswith("CC=")), "cc")
        result = self.transport.run([*shlex.split(compiler)[:1], "--version"], check=False, timeout=60)
        return result.text.splitlines()[0].strip() if result.ok and result.text.strip() else f"{compiler}: unknown"

    def compile_and_install(self, configure: list[str]) -> None:
        jobs = self.transport.run(["nproc"], check=False).text.strip() or "1"
        destdir = f"DESTDIR={posixpath.join(self.staging, 'dest')}"
        self.step("configure", configure)
        self.step("make", ["make", "-j", jobs], timeout=7200)
        self.step("make install", ["make", "install", destdir])
        for module in CONTRIB:
            if self.transport.exists(posixpath.join(self.src, "contrib", module, "Makefile")):
                self.step(f"make install of contrib/{module}", ["make", "-C", f"contrib/{module}", "install", destdir])

    def commit(self, info: SourceBuildInfo) -> None:
        installed = posixpath.join(self.staging, "dest", self.root.lstrip("/"))
        if not self.transport.run([posixpath.join(installed, "bin", "postgres"), "-V"], check=False).ok:
            raise SourceBuildError(f"build {self.build.name}: the compiled postgres does not run on its own")
        self.transport.put_bytes(json.dumps(info.__dict__, indent=1).encode(), posixpath.join(installed, BUILD_INFO))
        self.transport.put_bytes(f"{info.digest}\n".encode(), posixpath.join(installed, MARKER))
        self.transport.run(["rm", "-f", "--", self.failed_log], check=False)
        renamed = self.transport.run(["mv", "-T", "--", installed, self.root], check=False)
        if not renamed.ok and not self.transport.exists(posixpath.join(self.root, MARKER)):
            raise SourceBuildError(f"cannot move {installed} to {self.root}: {renamed.stderr.decode(errors='replace')}")


def compile_on_target(transport: Transport, build: BuildSpec, root: str, digest: str) -> SourceBuildInfo:
    """1. fetch the source, 2. patch, 3. configure, 4. make and install into staging, 5. record, 6. rename."""
    work = _Compile(transport, build, root)
    try:
        transport.run(["sh", "-c", 'umask 077 && mkdir -p -- "$1"', "sh", work.staging])
        source = work.fetch_source()
        work.apply_patches()
        configure = ["./configure", f"--prefix={root}", *parse_configure_options(build.configure_flags)]
        info = SourceBuildInfo(digest, shlex.join(configure), work.compiler_version(configure), source)
        work.compile_and_install(configure)
        work.commit(info)
        return info
    finally:
        transport.run(["rm", "-rf", "--", work.staging], check=False)
