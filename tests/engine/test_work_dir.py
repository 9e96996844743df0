"""A target's work dir is private, or the host is refused: real directories, a second local account."""

import os
import pwd
import stat
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from workers.build_digest import sri_to_hex
from workers.builds import BuildInstallError, install_build
from workers.local_transport import LocalTransport
from workers.spec import HostSpec
from workers.transport import connect
from workers.work_dir import PathEntry, UnsafeWorkDir, check_work_dir, path_refusals

OTHER_USER = "benchdash-other"
DIR = stat.S_IFDIR


def entry(path: str, uid: int, mode: int) -> PathEntry:
    return PathEntry(path, uid, DIR | mode, "directory")


def test_a_private_dir_under_root_owned_dirs_passes():
    entries = [entry("/home/b/w", 1000, 0o700), entry("/home/b", 1000, 0o755), entry("/home", 0, 0o755)]
    assert path_refusals(1000, [*entries, entry("/", 0, 0o755)], "/home/b/w") == []


def test_sticky_tmp_is_accepted_above_the_work_dir_but_never_as_it():
    tmp = entry("/tmp", 0, 0o1777)
    assert path_refusals(1000, [entry("/tmp/w", 1000, 0o700), tmp], "/tmp/w") == []
    refused = path_refusals(0, [entry("/tmp", 0, 0o1777)], "/tmp")
    assert refused == ["/tmp is writable by other accounts (mode 1777)"]


def test_another_account_s_dir_or_a_dir_others_may_write_is_refused():
    entries = [entry("/srv/x/w", 1000, 0o700), entry("/srv/x", 1001, 0o755), entry("/srv", 0, 0o777)]
    assert path_refusals(1000, entries, "/srv/x/w") == [
        "/srv/x belongs to uid 1001, neither root nor the account (uid 1000)",
        "/srv is writable by other accounts (mode 0777)",
    ]


def other_account() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("creating a second local account needs root")
    try:
        return pwd.getpwnam(OTHER_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--shell", "/bin/sh", OTHER_USER], check=True)
        return pwd.getpwnam(OTHER_USER)


@pytest.fixture
def shared_dir() -> Path:
    """A directory another account made and opened to all, as it could make /tmp/benchdash before benchdash did."""
    other = other_account()
    path = Path(tempfile.mkdtemp(prefix="benchdash-shared-"))
    path.chmod(0o777)
    os.chown(path, other.pw_uid, other.pw_gid)
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=True)


def test_a_missing_work_dir_is_made_private(local_target):
    host = replace(local_target, work_dir=f"{local_target.work_dir}/new/work")
    with connect(host) as transport:
        check_work_dir(transport)
    assert stat.S_IMODE(os.stat(host.work_dir).st_mode) == 0o700


def test_a_readable_work_dir_of_the_account_is_closed_to_others(local_target):
    os.chmod(local_target.work_dir, 0o755)  # noqa: S103 (the mistake under test)
    with connect(local_target) as transport:
        check_work_dir(transport)
    assert stat.S_IMODE(os.stat(local_target.work_dir).st_mode) == 0o700


def test_a_planted_build_in_another_account_s_dir_is_refused(shared_dir, archive_build):
    """The attack: another account made the work dir first and planted a build with its marker."""
    other = other_account()
    install = shared_dir / "builds" / sri_to_hex(archive_build.archive_integrity)[:16]
    planter = LocalTransport(HostSpec(name="local", work_dir=str(shared_dir)), run_as=other.pw_name)
    planter.run(["sh", "-c", 'mkdir -p "$1/package/native/bin" && echo 16.0 > "$1/.installed"', "sh", str(install)])
    with connect(HostSpec(name="local", work_dir=str(shared_dir))) as transport:
        with pytest.raises(UnsafeWorkDir) as refused:
            install_build(transport, archive_build)
        nested = replace(transport.host, work_dir=str(shared_dir / "work"))
    with connect(nested) as transport, pytest.raises(UnsafeWorkDir, match="neither root nor the account"):
        install_build(transport, archive_build)
    assert f"{shared_dir} belongs to uid {other.pw_uid}, not to the account benchdash runs as" in str(refused.value)
    assert str(refused.value).startswith(f"local refused: its work dir {shared_dir} is not private")


def test_a_work_dir_others_may_write_is_refused_even_when_it_is_the_account_s(local_target):
    os.chmod(local_target.work_dir, 0o777)  # noqa: S103 (the mistake under test)
    with connect(local_target) as transport, pytest.raises(UnsafeWorkDir, match="writable by other accounts"):
        check_work_dir(transport)


def test_a_link_to_a_shared_dir_is_followed_and_refused(local_target, shared_dir):
    link = Path(local_target.work_dir, "link")
    link.symlink_to(shared_dir)
    with connect(replace(local_target, work_dir=str(link))) as transport, pytest.raises(UnsafeWorkDir):
        check_work_dir(transport)


def test_a_changed_binary_is_refused(local_target, archive_build):
    with connect(local_target) as transport:
        installed = install_build(transport, archive_build)
        postgres = installed.tool("postgres")
        transport.run(["sh", "-c", 'printf "#!/bin/sh\\necho planted\\n" > "$1"', "sh", postgres])
    with connect(local_target) as transport, pytest.raises(BuildInstallError) as refused:
        install_build(transport, archive_build)
    assert "changed: bin/postgres" in str(refused.value)
    assert "refusing to run it" in str(refused.value)


def test_a_library_added_to_the_build_is_refused(local_target, archive_build):
    with connect(local_target) as transport:
        installed = install_build(transport, archive_build)
        transport.run(["cp", installed.tool("postgres"), f"{installed.lib_dir}/libplanted.so"])
        with pytest.raises(BuildInstallError, match="added: lib/libplanted.so"):
            install_build(transport, archive_build)


def test_an_archive_that_is_not_the_one_fetched_is_refused(local_target, archive_build, tmp_path):
    copy = tmp_path / "archive.tgz"
    copy.write_bytes(Path(archive_build.archive_path).read_bytes() + b"\0")
    with connect(local_target) as transport, pytest.raises(BuildInstallError, match="is not the one fetched"):
        install_build(transport, replace(archive_build, archive_path=str(copy)))


def test_an_archive_with_no_recorded_digest_is_refused(local_target, archive_build):
    with connect(local_target) as transport, pytest.raises(BuildInstallError, match="no sha512 was recorded"):
        install_build(transport, replace(archive_build, archive_integrity=""))


def test_an_installed_build_in_a_directory_others_may_change_is_refused(local_target, installed_build, shared_dir):
    """Debian's bin dir is root's and passes; a copy in another account's directory does not."""
    copy = shared_dir / "bin"
    subprocess.run(["cp", "-a", installed_build.bin_dir, str(copy)], check=True)
    with connect(local_target) as transport:
        install_build(transport, installed_build)
        with pytest.raises(UnsafeWorkDir) as refused:
            install_build(transport, replace(installed_build, bin_dir=str(copy)))
    assert f"build {installed_build.name} refused on local: other accounts could change what it runs" in str(
        refused.value
    )
    assert f"{shared_dir} belongs to uid" in str(refused.value)


def test_a_file_others_may_write_in_an_installed_build_s_bin_dir_is_refused():
    files = [entry("/opt/pg/bin", 0, 0o755), PathEntry("/opt/pg/bin/postgres", 0, stat.S_IFREG | 0o777, "regular file")]
    reasons = path_refusals(1000, files, "/opt/pg/bin", target_is_the_account_s=False)
    assert reasons == ["/opt/pg/bin/postgres is writable by other accounts (mode 0777)"]
