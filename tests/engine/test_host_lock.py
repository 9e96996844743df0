"""The host-wide lock: installations that share a target take turns on it, and a dead holder leaves no lock."""

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.factories import trial_spec_on
from workers.attempt import run_attempt
from workers.host_lock import HostLockBusy, host_lock, host_lock_on
from workers.preflight import check_host
from workers.transport import connect

STAGING = "6f1d3a52-0000-4000-8000-000000000001"
PRODUCTION = "6f1d3a52-0000-4000-8000-000000000002"
# Holds the lock as STAGING, says so, and sleeps until it is killed.
HOLDER = """
import sys, time
from workers.host_lock import host_lock
from workers.spec import HostSpec
from workers.transport import connect
with connect(eval(sys.argv[1])) as transport, host_lock(transport):
    print("holding", flush=True)
    time.sleep(600)
"""


def test_another_installation_finds_the_host_busy_with_the_holder_s_id(any_transport):
    busy = pytest.raises(HostLockBusy, match=f"another benchdash installation \\({STAGING}")
    staging = connect(any_transport.host.for_installation(STAGING))
    production = connect(any_transport.host.for_installation(PRODUCTION))
    with staging, production:
        with host_lock(staging), busy, host_lock(production):
            pytest.fail("two installations held the host together")
        with host_lock(production):
            assert any_transport.get_bytes(production.host.lock_path).startswith(f"{PRODUCTION} ".encode())


def test_an_attempt_of_the_same_installation_is_not_held_up_by_the_lock(any_transport):
    """An earlier attempt of the same store still holding it is the fence's business, not the lock's."""
    earlier = connect(any_transport.host.for_installation(STAGING))
    later = connect(any_transport.host.for_installation(STAGING))
    with earlier, later, host_lock(earlier), host_lock(later):
        assert later.run(["true"]).ok


def test_a_holder_whose_worker_is_killed_leaves_no_lock(any_transport):
    staging = any_transport.host.for_installation(STAGING)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, repr(staging)], stdout=subprocess.PIPE, cwd=os.getcwd(), text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        with connect(any_transport.host.for_installation(PRODUCTION)) as production:
            with pytest.raises(HostLockBusy), host_lock(production):
                pass
            holder.send_signal(signal.SIGKILL)
            holder.wait()
            assert taken_within(production, seconds=10)
    finally:
        holder.kill()
        holder.wait()


def taken_within(transport, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with host_lock(transport):
                return True
        except HostLockBusy:
            time.sleep(0.2)
    return False


def test_a_lock_file_that_does_not_name_an_installation_is_reported_as_an_unknown_holder(any_transport):
    """The target's account may write anything there: the note on the host and the page get no more than an id."""
    lock_path = any_transport.host.for_installation(STAGING).lock_path
    scrawl = 'exec 9>>"$1" && flock 9 && printf "%s" "<b>$(head -c 300 /dev/zero | tr "\\0" x)" > "$1" && echo held'
    squatter = any_transport.hold(["sh", "-c", f"{scrawl} && exec cat", "sh", lock_path], timeout=60)
    try:
        assert squatter.first_line(10) == "held"
        production = connect(any_transport.host.for_installation(PRODUCTION))
        with production, pytest.raises(HostLockBusy, match=r"installation \(unknown\)") as busy, host_lock(production):
            pass
        assert busy.value.holder == "unknown"
    finally:
        squatter.release()


def test_the_lock_is_taken_only_in_a_work_dir_found_private(local_target):
    """Taking the lock writes a file: never in a directory another account could fill with links."""
    os.chmod(local_target.work_dir, 0o777)  # noqa: S103 (the mistake under test)
    db_host = local_target.for_installation(STAGING)

    outcome = run_attempt(trial_spec_on(db_host), should_cancel=lambda: False)

    assert not outcome.ok and "UnsafeWorkDir" in outcome.error and "writable by other accounts" in outcome.error
    assert not os.path.lexists(db_host.lock_path)


def test_an_attempt_whose_connection_drops_takes_the_lock_again_as_it_reconnects(ssh_target):
    """The holder went with the lost connection; the attempt goes on once it reconnects, and not without the lock."""
    staging = connect(ssh_target.for_installation(STAGING))
    production = connect(ssh_target.for_installation(PRODUCTION))
    with staging, production, host_lock(staging):
        staging._client.get_transport().close()  # the network drops the connection under the attempt

        assert staging.run(["true"]).ok  # made again
        with pytest.raises(HostLockBusy, match=STAGING), host_lock(production):
            pytest.fail("the other installation took the host while the attempt went on")


def test_a_noise_check_of_a_host_busy_with_another_installation_gives_no_verdict(any_transport):
    """The other installation's trial is no noise of the host's: no 'noisy' verdict from it."""
    staging = connect(any_transport.host.for_installation(STAGING))
    with staging, host_lock(staging):
        report = check_host(any_transport.host.for_installation(PRODUCTION), sample_ms=100, micro_runs=1)
    assert report["verdict"] == "unknown"
    assert f"busy with another benchdash installation ({STAGING})" in report["error"]


def test_the_look_before_a_study_waits_for_another_installation_s_run_and_then_holds_the_lock(any_transport):
    """The facts and noise check before a study's first trial (queue.tasks.look_before_the_study) run under the lock,
    on a connection of their own: never beside another installation's run (its pgbench --version was seen there)."""
    production = any_transport.host.for_installation(PRODUCTION)
    staging = connect(any_transport.host.for_installation(STAGING))
    with staging, host_lock(staging), pytest.raises(HostLockBusy, match=STAGING), host_lock_on(production):
        pytest.fail("looked at the host while another installation held it")
    with host_lock_on(production):
        assert any_transport.get_bytes(production.lock_path).startswith(f"{PRODUCTION} ".encode())


def test_a_holder_that_has_not_yet_written_its_name_is_never_taken_for_the_last_holder(any_transport):
    """Between a holder's flock and its name in the file, the file still names the last holder, whose process is
    gone: an attempt of that installation must find the host busy, not take it for its own earlier attempt."""
    staging = connect(any_transport.host.for_installation(STAGING))
    with staging:
        with host_lock(staging):
            pass  # the file now names staging and a holder that has ended
        lock_path = staging.host.lock_path
        silent = 'exec 9>>"$1" && flock 9 && echo held'  # holds the lock, names nobody yet
        newcomer = any_transport.hold(["sh", "-c", f"{silent} && exec cat", "sh", lock_path], timeout=60)
        try:
            assert newcomer.first_line(10) == "held"
            with pytest.raises(HostLockBusy, match=r"installation \(unknown\)"), host_lock(staging):
                pytest.fail("an attempt went on beside another holder")
        finally:
            newcomer.release()
