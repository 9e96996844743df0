"""A source build end to end: Debian's own PostgreSQL source, compiled on the target, then a tiny pgbench trial on it.

Usage:  .venv/bin/python bench/source_build.py [--package postgresql-15] [--mirror URL] [--suite bookworm]
                                               [--configure "--without-icu --without-readline"] [--work-dir DIR]

1. `apt-get source --download-only PACKAGE` in a temporary dir, with a sources list of its own (one deb-src line for
   the mirror and suite) and lists of its own: the system's apt state is not touched. It yields the upstream tarball
   (PACKAGE_X.Y.orig.tar.bz2) that Debian builds from.
2. The tarball as a source build (workers/source_build.py) on the host `local`: upload, unpack, configure, make,
   make install (with contrib/pg_prewarm), timed; then the same install again, which must come from the cache.
3. One trial through the runner, as a study runs it: scale 1, select-only, 2 clients, 2 s, prewarm.
Prints what docs/BENCHMARKS.md records. --work-dir keeps the compiled build for a second run (a cache hit then).
"""

import argparse
import glob
import os
import posixpath
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import bench_spec  # noqa: E402 (after the path set-up)

from tests.sshd import local_work_dir  # noqa: E402
from workers import source_build  # noqa: E402
from workers.builds import install_build  # noqa: E402
from workers.runner import run_trial  # noqa: E402
from workers.spec import BuildSpec, HostSpec, TrialSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default="postgresql-15")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--suite", default="bookworm")
    parser.add_argument("--configure", default="--without-icu --without-readline")
    parser.add_argument("--work-dir", default="", help="the host's work dir, kept (default: a fresh one, removed)")
    return parser.parse_args()


def debian_source_tarball(package: str, mirror: str, suite: str, into: Path) -> Path:
    """The upstream tarball of Debian's source package, fetched with apt-get into `into`."""
    (into / "lists" / "partial").mkdir(parents=True)
    (into / "sources.list").write_text(f"deb-src {mirror} {suite} main\n")
    apt = [
        "apt-get",
        "-q",
        "-o", f"Dir::Etc::SourceList={into / 'sources.list'}",
        "-o", "Dir::Etc::SourceParts=/dev/null",
        "-o", f"Dir::State::Lists={into / 'lists'}",
        "-o", "Debug::NoLocking=1",
    ]  # fmt: skip
    subprocess.run([*apt, "update"], check=True, capture_output=True)
    subprocess.run([*apt, "source", "--download-only", package], check=True, capture_output=True, cwd=into)
    found = glob.glob(str(into / f"{package}_*.orig.tar.*"))
    if not found:
        raise SystemExit(f"apt-get source {package} left no .orig.tar.* in {into}")
    return Path(found[0])


def timed_install(transport: Transport, build: BuildSpec) -> tuple[float, str]:
    started = time.perf_counter()
    installed = install_build(transport, build)
    return time.perf_counter() - started, installed.bin_dir


def tiny_trial(host: HostSpec, build: BuildSpec) -> TrialSpec:
    """Scale 1, select-only, 2 clients, 2 s, prewarmed: engine_fidelity's trial on the source build."""
    options = argparse.Namespace(builtin="select-only", clients=2, duration=2, scale=1, bin_dir="")
    return bench_spec(host, options, build)


def main() -> None:
    args = arguments()
    work_dir = args.work_dir or local_work_dir("benchdash-bench-source-")
    download_dir = Path(tempfile.mkdtemp(prefix="benchdash-apt-source-"))
    try:
        started = time.perf_counter()
        tarball = debian_source_tarball(args.package, args.mirror, args.suite, download_dir)
        fetch_s = time.perf_counter() - started
        build = BuildSpec(name=tarball.name, kind="source", archive_path=str(tarball), configure_flags=args.configure)
        build = BuildSpec(**{**build.__dict__, "source_digest": source_build.source_digest(build)})
        host = HostSpec(name="local", work_dir=work_dir)
        with connect(host) as transport:
            compile_s, bin_dir = timed_install(transport, build)
            cached_s, _same = timed_install(transport, build)
            info = source_build.read_build_info(transport, posixpath.dirname(bin_dir))
            outcome = run_trial(tiny_trial(host, build), transport)
        print(f"{tarball.name} ({tarball.stat().st_size / 1e6:.1f} MB), {os.cpu_count()} CPUs")
        print(f"| apt-get source | {fetch_s:.1f} s |")
        print(f"| install (compiles unless the work dir holds it) | {compile_s:.1f} s |")
        print(f"| install again in this process (cache hit by digest) | {cached_s:.2f} s |")
        print(f"configure line: {info.configure_line}\ncompiler: {info.compiler}")
        print(f"trial: ok={outcome.ok} server {outcome.server_version}, pgbench {outcome.pgbench_version}, ", end="")
        print(f"tps {outcome.tps} error {outcome.error!r}")
    finally:
        shutil.rmtree(download_dir, ignore_errors=True)
        if not args.work_dir:
            shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
