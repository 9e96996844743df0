"""Set-up waits while another program holds apt's or dpkg's lock, saying which process holds it, instead of failing at
once (deploy/lib.sh's wait_for_apt_locks, before each apt-get). The lock here is of apt's own kind (a POSIX lock, as
fcntl takes it) on a file of the test's, so that no other set-up on this machine waits for it."""

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOLD = """
import fcntl, sys, time
lock = open(sys.argv[1], "w")
fcntl.lockf(lock, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@pytest.fixture
def lock_file(tmp_path: Path) -> Path:
    return tmp_path / "lock-frontend"


@contextmanager
def lock_held(lock_file: Path, seconds: float) -> Iterator[subprocess.Popen]:
    """A process that holds lock_file's lock for `seconds`."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, lock_file, str(seconds)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def wait_for_apt_locks(*files: Path, wait_s: int = 600) -> subprocess.CompletedProcess:
    script = f'ROOT="$PWD" && source deploy/lib.sh && APT_LOCK_WAIT_S={wait_s} && wait_for_apt_locks "$@" && echo free'
    argv = ["bash", "-c", script, "bash", *map(str, files)]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_set_up_waits_for_a_held_lock_saying_which_process_holds_it(lock_file):
    with lock_held(lock_file, 2) as held:
        started = time.monotonic()
        waited = wait_for_apt_locks(Path("/nonexistent/lock"), lock_file)

        assert waited.returncode == 0 and waited.stdout.endswith("free\n"), waited.stderr
        assert f"waiting for the apt/dpkg lock held by PID {held.pid} (python" in waited.stdout
        assert time.monotonic() - started >= 1.5 and held.poll() is not None


def test_a_lock_held_past_the_wait_stops_set_up_with_one_sentence(lock_file):
    with lock_held(lock_file, 60) as held:
        waited = wait_for_apt_locks(lock_file, wait_s=1)

    assert waited.returncode == 1 and "free" not in waited.stdout
    assert waited.stderr == (
        f"benchdash setup: the apt/dpkg lock is still held by PID {held.pid} after 1 s: let it finish, then run set-up "
        "again\n"
    )


def test_a_free_lock_is_not_waited_for(lock_file):
    lock_file.write_text("")
    started = time.monotonic()

    waited = wait_for_apt_locks(lock_file)

    assert waited.stdout == "free\n" and time.monotonic() - started < 1
