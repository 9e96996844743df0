"""A duet round on the worker's own machine, with Debian's PostgreSQL: both sides' servers and pgbench in their own
half of the CPUs (this machine's two CPUs: CPU 0 and CPU 1), both pgbench runs at the same moment, a failed side
failing the round (issue 42, point 5)."""

import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from workers.cpu_set import parse_cpu_list
from workers.duet import cancelled_together, fail_together, halves_of, run_duet
from workers.failure_kind import FailureKind
from workers.spec import BuildSpec, HostSpec, ScenarioSpec, TrialOutcome, TrialSpec
from workers.transport import Transport
from workers.trial_cluster import cluster_dir

pytestmark = [pytest.mark.slow, pytest.mark.shared_pristine_data]


def side(host: HostSpec, build: BuildSpec, trial_id: int, half: int) -> TrialSpec:
    return TrialSpec(
        trial_id=trial_id,
        study_id=42,
        db_host=host,
        client_host=host,
        build=build,
        scenario=ScenarioSpec(slug="select", builtin="select-only"),
        clients=1,
        threads=1,
        duration_s=2,
        scale=1,
        pg_settings={"shared_buffers": "32MB"},
        duet_half=half,
    )


@pytest.fixture
def two_cpus(local_transport: Transport) -> None:
    if len(parse_cpu_list(local_transport.run(["cat", "/sys/devices/system/cpu/online"]).text)) < 2:
        pytest.skip("a duet needs two CPUs")


def test_the_halves_are_the_numa_nodes_where_there_are_two_or_more_else_the_online_cpus_split():
    assert halves_of([[0, 1, 2, 3]], [0, 1, 2, 3]) == ([0, 1], [2, 3])
    assert halves_of([[0, 2], [1, 3]], [0, 1, 2, 3]) == ([0, 2], [1, 3])
    assert halves_of([[0], [1], [2], [3]], [0, 1, 2, 3]) == ([0, 1], [2, 3])
    assert halves_of([], [0, 1, 2]) == ([0], [1, 2])


def test_both_sides_run_at_once_each_server_and_pgbench_in_its_half(
    two_cpus, local_target, local_transport, installed_build
):
    leader, partner = side(local_target, installed_build, 1, half=1), side(local_target, installed_build, 2, half=0)
    first, second = run_duet((leader, partner), local_transport, should_cancel=lambda: False)
    assert first.ok and second.ok, (first.error, second.error)
    assert first.tps and second.tps
    # each on its half: the leader on half 2 (CPU 1), its partner on half 1 (CPU 0)
    assert first.host_facts["duet_halves"] == ["0", "1"]
    assert first.command.startswith("taskset -c 1 ") and second.command.startswith("taskset -c 0 ")
    assert "CPU set 1: pgbench inside it during the run" in first.notes
    assert "CPU set 0: pgbench inside it during the run" in second.notes
    assert any(note.startswith("CPU set 1: ") and "server processes inside it" in note for note in first.notes)
    assert "duet: ran on half 2 of 2 (CPUs 1)" in first.notes
    # each server's cache sized for half the host's memory
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    memory_kb = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    for outcome in (first, second):
        assert abs(_kb(outcome.server_settings["effective_cache_size"]) - memory_kb // 2) <= 8
    # both pgbench runs started within a few ms of each other, and overlapped for most of their 2 s
    assert first.pgbench_started_at and second.pgbench_started_at and first.pgbench_ended_at
    assert abs((first.pgbench_started_at - second.pgbench_started_at).total_seconds()) < 0.05
    overlap = min(first.pgbench_ended_at, second.pgbench_ended_at) - max(
        first.pgbench_started_at, second.pgbench_started_at
    )
    assert overlap.total_seconds() > 1.5


def test_an_aa_duet_of_one_build_gives_each_side_its_own_cluster(
    two_cpus, local_target, local_transport, installed_build
):
    leader, partner = side(local_target, installed_build, 3, half=0), side(local_target, installed_build, 4, half=1)
    first, second = run_duet((leader, partner), local_transport, should_cancel=lambda: False)
    assert first.ok and second.ok, (first.error, second.error)
    assert first.command.startswith("taskset -c 0 ") and second.command.startswith("taskset -c 1 ")
    assert " -p " in first.command and first.command.split(" -p ")[1] != second.command.split(" -p ")[1]


def test_a_side_whose_server_is_killed_fails_the_round_and_its_partner_with_it(
    two_cpus, local_target, local_transport, installed_build
):
    leader = replace(side(local_target, installed_build, 5, half=0), duration_s=3, duet_side=0)
    partner = replace(side(local_target, installed_build, 6, half=1), duration_s=3)
    killer = threading.Thread(target=_kill_a_postmaster_once_pgbench_runs, args=(local_transport, installed_build))
    killer.start()
    first, second = run_duet((leader, partner), local_transport, should_cancel=lambda: False)
    killer.join()
    assert not first.ok and not second.ok
    failed = [outcome for outcome in (first, second) if not outcome.error.startswith("its ")]
    assert len(failed) == 1
    other = first if failed[0] is second else second
    assert other.error.startswith(("its leader side failed", "its partner side failed"))
    assert other.failure_kind == failed[0].failure_kind


def test_a_cancel_stops_both_sides(two_cpus, local_target, local_transport, installed_build):
    leader = replace(side(local_target, installed_build, 7, half=0), duration_s=30)
    partner = replace(side(local_target, installed_build, 8, half=1), duration_s=30)
    started = time.monotonic()
    cancel_at = started + 8
    first, second = run_duet((leader, partner), local_transport, should_cancel=lambda: time.monotonic() > cancel_at)
    assert time.monotonic() - started < 25
    assert first.failure_kind == second.failure_kind == FailureKind.CANCELLED


def test_a_side_stopped_by_a_cancel_as_it_set_up_is_cancelled_not_failed():
    stopped = TrialOutcome(ok=False, error="initdb exited with -9", failure_kind=FailureKind.TARGET_FAILED)
    cancelled = TrialOutcome(ok=False, error="cancelled during pgbench", failure_kind=FailureKind.CANCELLED)
    cancelled_together(stopped, cancelled)
    assert (stopped.failure_kind, stopped.error) == (FailureKind.CANCELLED, "cancelled")
    assert stopped.notes == ["stopped by the cancel: initdb exited with -9"]
    assert (cancelled.error, cancelled.notes) == ("cancelled during pgbench", [])


def test_one_failed_side_fails_the_other_with_its_kind():
    good = TrialOutcome(ok=True, tps=100.0)
    bad = TrialOutcome(ok=False, error="boom", failure_kind=FailureKind.PGBENCH_FAILED, deterministic=True)
    first, second = fail_together(good, bad)
    assert (first.ok, first.error, first.failure_kind, first.deterministic) == (
        False,
        "its partner side failed: boom",
        FailureKind.PGBENCH_FAILED,
        True,
    )
    assert second is bad and second.error == "boom"


def _kb(shown: str) -> int:
    """SHOW's size ('7875MB', '8064kB') in kB."""
    units = {"kB": 1, "MB": 2**10, "GB": 2**20, "TB": 2**30}
    unit = shown[-2:]
    return int(shown[:-2]) * units[unit]


def _kill_a_postmaster_once_pgbench_runs(transport: Transport, build: BuildSpec) -> None:
    """SIGKILL the leader's postmaster a second after the gate let both pgbench runs start."""
    work_dir = transport.host.work_dir
    started = f"{work_dir}/trials/duet-5.started"
    leader = replace(side(transport.host, build, 5, half=0), duet_side=0)
    pid_file = f"{cluster_dir(leader)}/data/postmaster.pid"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not transport.exists(started):
        time.sleep(0.1)
    time.sleep(1.0)
    pid = transport.run(["head", "-1", pid_file], check=False).text.strip()
    transport.run(["kill", f"-{signal.SIGKILL.value}", pid], check=False)
