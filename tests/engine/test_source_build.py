"""Source builds on a real target: unpack or clone, patch, configure, make, install, cached by digest (a tiny tree)."""

import posixpath
from pathlib import Path

import pytest

from tests.source_tree import (
    LOCK_COUNTERS_PATCH,
    STRAY_PATCH,
    VERSION,
    git_repository,
    patch_file,
    source_tarball,
)
from workers import source_build
from workers.builds import BuildInstallError, install_build
from workers.spec import BuildSpec, HostSpec
from workers.transport import Transport, connect


def tarball_build(tarball: Path, **fields: object) -> BuildSpec:
    return BuildSpec(name="fake-source", kind="source", archive_path=str(tarball), **fields)  # type: ignore[arg-type]


def registered(build: BuildSpec) -> BuildSpec:
    """The build as the app hands it over: with the digest recorded when it was registered."""
    return BuildSpec(**{**build.__dict__, "source_digest": source_build.source_digest(build)})


def run_postgres_version(transport: Transport, bin_dir: str) -> str:
    return transport.run([posixpath.join(bin_dir, "postgres"), "-V"]).text.strip()


def test_a_tarball_is_compiled_on_the_target_with_its_options_and_the_line_and_compiler_are_recorded(
    local_target: HostSpec, tmp_path: Path
) -> None:
    build = registered(tarball_build(source_tarball(tmp_path), configure_flags="--without-icu CFLAGS='-O0 -g'"))
    with connect(local_target) as transport:
        installed = install_build(transport, build)
        info = source_build.read_build_info(transport, posixpath.dirname(installed.bin_dir))
    root = posixpath.join(local_target.work_dir, "builds", f"src-{build.source_digest[:16]}")
    assert installed.bin_dir == f"{root}/bin" and installed.version == VERSION
    assert info.configure_line == f"./configure --prefix={root} --without-icu 'CFLAGS=-O0 -g'"
    assert info.compiler.split()[0] in {"cc", "gcc", "clang"} and any(char.isdigit() for char in info.compiler)
    assert info.digest == build.source_digest and len(info.source) == 64
    assert installed.configure == f"'--prefix={root}' '--without-icu' 'CFLAGS=-O0 -g'"


def test_a_second_install_reuses_the_compiled_build_and_new_options_compile_another(
    local_target: HostSpec, tmp_path: Path
) -> None:
    tarball = source_tarball(tmp_path)
    first, other = registered(tarball_build(tarball)), registered(tarball_build(tarball, configure_flags="--debug"))
    with connect(local_target) as transport:
        installed = install_build(transport, first)
        marker = posixpath.join(posixpath.dirname(installed.bin_dir), source_build.MARKER)
        before = transport.run(["stat", "-c", "%i %Y", marker]).text
        again = install_build(transport, first)
        after = transport.run(["stat", "-c", "%i %Y", marker]).text
        third = install_build(transport, other)
    assert again == installed and before == after
    assert third.bin_dir != installed.bin_dir and first.source_digest != other.source_digest


def test_a_patch_is_one_field_away_and_makes_its_own_build(local_target: HostSpec, tmp_path: Path) -> None:
    tarball = source_tarball(tmp_path)
    patch = patch_file(tmp_path, "lock-counters.patch", LOCK_COUNTERS_PATCH)
    plain, patched = registered(tarball_build(tarball)), registered(tarball_build(tarball, patches=(str(patch),)))
    with connect(local_target) as transport:
        plain_version = run_postgres_version(transport, install_build(transport, plain).bin_dir)
        patched_installed = install_build(transport, patched)
        patched_version = run_postgres_version(transport, patched_installed.bin_dir)
    assert plain_version == f"postgres (PostgreSQL) {VERSION}"
    assert patched_version == f"postgres (PostgreSQL) {VERSION} (lock counters)"
    assert patched_installed.version == VERSION


def test_a_patch_that_does_not_apply_is_reported_with_its_log_and_leaves_nothing(
    local_target: HostSpec, tmp_path: Path
) -> None:
    patch = patch_file(tmp_path, "stray.patch", STRAY_PATCH)
    build = registered(tarball_build(source_tarball(tmp_path), patches=(str(patch),)))
    with connect(local_target) as transport, pytest.raises(BuildInstallError) as raised:
        install_build(transport, build)
    message = str(raised.value)
    assert "patch 01-stray.patch failed" in message and "FAILED" in message
    builds_dir = Path(local_target.work_dir, "builds")
    assert sorted(path.name for path in builds_dir.iterdir()) == [f"src-{build.source_digest[:16]}.failed.log"]


def test_a_compile_error_is_reported_with_the_compilers_message(local_target: HostSpec, tmp_path: Path) -> None:
    build = registered(tarball_build(source_tarball(tmp_path), configure_flags="--enable-broken"))
    with connect(local_target) as transport, pytest.raises(BuildInstallError) as raised:
        install_build(transport, build)
    assert "make failed (exit 2)" in str(raised.value) and "fake tree: broken on purpose" in str(raised.value)


def test_a_tarball_changed_since_it_was_registered_is_refused_before_anything_runs(
    local_target: HostSpec, tmp_path: Path
) -> None:
    tarball = source_tarball(tmp_path)
    build = registered(tarball_build(tarball))
    tarball.write_bytes(tarball.read_bytes() + b"\0")
    with connect(local_target) as transport, pytest.raises(BuildInstallError, match="not those registered"):
        install_build(transport, build)
    assert not Path(local_target.work_dir, "builds").exists()


def test_a_git_ref_is_cloned_and_built_and_its_commit_recorded(local_target: HostSpec) -> None:
    with connect(local_target) as transport:
        repository = git_repository(transport, posixpath.join(local_target.work_dir, "repo"))
        build = registered(BuildSpec(name="fake-git", kind="source", source_url=repository, git_ref=f"v{VERSION}"))
        installed = install_build(transport, build)
        info = source_build.read_build_info(transport, posixpath.dirname(installed.bin_dir))
        head = transport.run(["git", "-C", repository, "rev-parse", "HEAD"]).text.strip()
    assert installed.version == VERSION and info.source == head


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ("--with-openssl; rm -rf /", "'--with-openssl;' is neither --option nor VARIABLE=value"),
        ("--prefix=/tmp/elsewhere", "is set by benchdash"),
        ("--with-x 'unclosed", "cannot be read"),
        ("$(touch /tmp/x)", "is neither --option"),
    ],
)
def test_configure_options_that_are_not_options_are_refused_with_a_sentence(options: str, refused: str) -> None:
    with pytest.raises(ValueError, match="configure option") as raised:
        source_build.parse_configure_options(options)
    assert refused in str(raised.value)


@pytest.mark.parametrize(
    ("url", "ref"),
    [("--upload-pack=touch /tmp/x", "main"), ("https://git.example.org/pg.git", "-x"), ("/repo", "a/../b")],
)
def test_a_git_url_or_ref_that_could_be_read_as_an_option_is_refused(url: str, ref: str) -> None:
    assert source_build.git_source_problem(url, ref) is not None
