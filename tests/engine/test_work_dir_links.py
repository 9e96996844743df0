"""Every symbolic link on a work dir's path is checked itself, with every directory it passes through (issue 19):
a link of another account's, or one that passes through a directory others may write, refuses the host."""

import os
import pwd
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.sshd import owned_temp_dir, run_user_account
from workers.spec import HostSpec
from workers.transport import connect
from workers.work_dir import UnsafeWorkDir, check_work_dir

NOBODY = pwd.getpwnam("nobody")


@pytest.fixture
def private_dir() -> Iterator[Path]:
    """A directory of the account's, mode 0700, under /tmp: where a link leads."""
    path = Path(owned_temp_dir(run_user_account(), "benchdash-private-"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def temp_dir(prefix: str, mode: int) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(mode)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory every account may write (not sticky): a link must never pass through it."""
    yield from temp_dir("benchdash-open-", 0o777)


@pytest.fixture
def root_dir() -> Iterator[Path]:
    """A directory of ours (root's, when the tests run as root) that the account may enter."""
    yield from temp_dir("benchdash-links-", 0o755)


def link(at: Path, to: str, owner: pwd.struct_passwd | None = None) -> Path:
    at.symlink_to(to)
    if owner is not None:
        if os.geteuid() != 0:
            pytest.skip("giving a link to another account needs root")
        os.lchown(at, owner.pw_uid, owner.pw_gid)
    return at


def refusal(host: HostSpec, work_dir: Path) -> str:
    with connect(replace(host, work_dir=str(work_dir))) as transport, pytest.raises(UnsafeWorkDir) as refused:
        check_work_dir(transport)
    return str(refused.value)


def test_a_link_of_another_account_s_on_the_path_is_refused(local_target, private_dir):
    hop = link(Path(local_target.work_dir, "hop"), str(private_dir), owner=NOBODY)
    message = refusal(local_target, hop / "work")
    assert f"{hop} belongs to uid {NOBODY.pw_uid}, neither root nor the account" in message


def test_a_link_of_another_account_s_inside_a_link_s_target_is_refused(local_target, private_dir, root_dir):
    """Only the first link is on the path as typed: the second one appears when the first is resolved."""
    inner = link(root_dir / "inner", str(private_dir), owner=NOBODY)
    outer = link(Path(local_target.work_dir, "outer"), str(inner))
    message = refusal(local_target, outer)
    assert f"{inner} belongs to uid {NOBODY.pw_uid}, neither root nor the account" in message
    assert f"{outer} belongs" not in message


def test_a_link_that_passes_through_a_directory_others_may_write_is_refused(local_target, private_dir, open_dir):
    """open_dir/.. is /tmp, where private_dir lies: the resolved path is fine, the way there is not."""
    through = link(Path(local_target.work_dir, "through"), f"{open_dir}/../{private_dir.name}")
    assert f"{open_dir} is writable by other accounts (mode 0777)" in refusal(local_target, through)


@pytest.mark.parametrize("owner", ["account", "root"])
def test_a_link_of_root_s_or_the_account_s_to_a_private_dir_is_followed(local_target, private_dir, owner):
    hop = link(
        Path(local_target.work_dir, "hop"), str(private_dir), owner=run_user_account() if owner == "account" else None
    )
    with connect(replace(local_target, work_dir=str(hop / "work"))) as transport:
        check_work_dir(transport)
    assert (private_dir / "work").is_dir()


def test_a_loop_of_links_is_refused(local_target):
    first = Path(local_target.work_dir, "first")
    link(first, str(Path(local_target.work_dir, "second")))
    link(Path(local_target.work_dir, "second"), str(first))
    assert "cannot make or inspect" in refusal(local_target, first / "work")
