"""run_trial end to end on real targets: an sshd on 127.0.0.1 and the worker's own machine, Debian's PostgreSQL.

Each trial runs pgbench for 2-3 s at scale 1; the reference scenario paced (tests/queue/support.paced), since these
tests are about the runner, not the workload: its real script runs through the queue tests' studies.
"""

import json
import posixpath
import time
from collections.abc import Callable
from dataclasses import replace

import pytest

from benchdash.studies.lifecycle.specs import spec_from_row
from benchdash.studies.seed_data import SCENARIOS
from tests.queue.support import paced
from workers.failure_kind import FailureKind
from workers.pgbench import parse_pgbench_output
from workers.runner import run_trial
from workers.spec import BuildSpec, HostSpec, ScenarioSpec, TrialSpec
from workers.transport import Transport, connect
from workers.trial_cluster import cluster_dir

pytestmark = [pytest.mark.slow, pytest.mark.shared_pristine_data]
PRESETS = {preset.slug: preset for preset in SCENARIOS}


def scenario(slug: str) -> ScenarioSpec:
    preset = spec_from_row(ScenarioSpec, PRESETS[slug])
    return replace(preset, script=paced(preset.script)) if slug == "pgecons-reference" else preset


def trial(host: HostSpec, build: BuildSpec, slug: str = "pgecons-reference", **changes: object) -> TrialSpec:
    spec = TrialSpec(
        trial_id=7,
        study_id=3,
        db_host=host,
        client_host=host,
        build=build,
        scenario=scenario(slug),
        clients=2,
        threads=1,
        duration_s=2,
        scale=1,
        fillfactor=PRESETS[slug].fillfactor,
        collect_sar=True,
        collect_wait_events=True,
        reset_data=True,
        prewarm=PRESETS[slug].prewarm != "none",
    )
    return replace(spec, **changes)  # type: ignore[arg-type]


def data_dir(spec: TrialSpec) -> str:
    return posixpath.join(cluster_dir(spec), "data")


def live_group_members(transport: Transport, pgid: int) -> list[str]:
    """The processes of a group that still run (this sandbox's init leaves zombies unreaped)."""
    listing = transport.run(["ps", "-o", "pid=,stat=,args=", "-g", str(pgid)], check=False).text
    return [line.strip() for line in listing.splitlines() if "Z" not in line.split()[1]]


def pgbench_runs(transport: Transport) -> bool:
    return transport.exists(f"{transport.run_dir}/pgbench.pid")


def after_calls(transport: Transport, calls: int, action: Callable[[], object]) -> Callable[[], bool]:
    """A should_cancel that does `action` on its calls-th call while pgbench runs (about one a second)."""
    seen = []

    def should_cancel() -> bool:
        if pgbench_runs(transport):
            seen.append(1)
            if len(seen) == calls:
                action()
        return False

    return should_cancel


@pytest.mark.parametrize("slug", ["pgecons-reference", "pgecons-update"])
def test_a_seed_trial_reports_tps_at_the_study_scale(any_transport, installed_build, slug):
    spec = trial(any_transport.host, installed_build, slug)
    outcome = run_trial(spec, any_transport)
    assert outcome.error == ""
    assert outcome.ok is True
    assert outcome.tps > 0 and outcome.transactions > 0
    parsed = parse_pgbench_output(
        outcome.artifacts["pgbench_stdout"].decode(), outcome.artifacts["pgbench_stderr"].decode()
    )
    assert parsed.scaling_factor == spec.scale
    assert f"-f {any_transport.host.work_dir}/trials/trial-7/script.sql -s 1" in outcome.command
    assert outcome.server_version.startswith(outcome.server_settings["server_version"].split()[0])
    assert outcome.timings["pgbench"] >= spec.duration_s
    assert len(json.loads(outcome.artifacts["progress"])) >= 1
    assert json.loads(outcome.artifacts["wait_events"])["samples"] >= 1
    assert all(0 <= idle <= 100 for idle in json.loads(outcome.artifacts["sar_series"])["cpu"]["idle"])
    assert {"sar", "server_log", "settings"} <= outcome.artifacts.keys()


def test_pgbench_on_the_db_host_is_the_build_s_own_where_it_ships_one(local_transport, installed_build):
    """A build whose bin dir holds a pgbench (a source build; archives hold none) runs it, not the host's."""
    bin_dir = posixpath.join(local_transport.host.work_dir, "own-build", "bin")
    link_all = 'mkdir -p -- "$2" && for tool in "$1"/*; do ln -s -- "$tool" "$2"/; done && rm -- "$2/pgbench"'
    local_transport.run(["sh", "-c", link_all, "sh", installed_build.bin_dir, bin_dir])
    own = f'#!/bin/sh\nexec "{installed_build.bin_dir}/pgbench" "$@"\n'.encode()
    local_transport.put_bytes(own, posixpath.join(bin_dir, "pgbench"), mode=0o755)
    build = replace(installed_build, name="own-pgbench", bin_dir=bin_dir)
    spec = trial(local_transport.host, build, collect_sar=False, collect_wait_events=False, duration_s=1)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok, outcome.error
    assert outcome.command.startswith(f"{bin_dir}/pgbench ")


def test_the_windows_update_trial_checkpoints_and_vacuums_after_the_run(local_transport, installed_build):
    outcome = run_trial(trial(local_transport.host, installed_build, "pgecons-windows-update"), local_transport)
    assert outcome.ok is True
    assert outcome.timings["checkpoint_vacuum"] > 0


def test_the_2021_update_trial_does_nothing_the_seed_does_not_state(local_transport, installed_build):
    outcome = run_trial(trial(local_transport.host, installed_build, "pgecons-update"), local_transport)
    assert outcome.ok is True
    assert "checkpoint_vacuum" not in outcome.timings


def test_it_leaves_no_server_and_no_trial_files_behind(local_transport, installed_build):
    spec = trial(local_transport.host, installed_build, collect_sar=False, collect_wait_events=False)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok is True
    pg_ctl = posixpath.join(installed_build.bin_dir, "pg_ctl")
    assert local_transport.run([pg_ctl, "-D", data_dir(spec), "status"], check=False).exit_status == 3
    assert local_transport.exists(f"{local_transport.host.work_dir}/trials/trial-7") is False


def test_a_server_killed_mid_run_gives_an_aborted_failed_trial_with_the_raw_output_kept(ssh_transport, installed_build):
    spec = trial(ssh_transport.host, installed_build, duration_s=3)
    pg_ctl = posixpath.join(installed_build.bin_dir, "pg_ctl")
    with connect(ssh_transport.host) as killer:
        kill = after_calls(
            ssh_transport, 2, lambda: killer.run([pg_ctl, "-D", data_dir(spec), "-m", "immediate", "stop"])
        )
        outcome = run_trial(spec, ssh_transport, should_cancel=kill)
    assert outcome.ok is False
    assert "aborted" in outcome.error
    assert b"aborted" in outcome.artifacts["pgbench_stdout"] + outcome.artifacts["pgbench_stderr"]
    assert b"immediate shutdown" in outcome.artifacts["server_log"]


def test_a_cancel_stops_the_remote_pgbench_within_seconds(ssh_transport, installed_build):
    spec = trial(ssh_transport.host, installed_build, duration_s=60, collect_sar=False)
    seen: dict[str, float] = {}

    def cancel_after_a_second() -> bool:
        if not seen and pgbench_runs(ssh_transport):
            seen["group"] = int(ssh_transport.get_bytes(f"{ssh_transport.run_dir}/pgbench.pid").split()[0])
            seen["first_poll"] = time.monotonic()
        return bool(seen) and time.monotonic() - seen["first_poll"] >= 1

    outcome = run_trial(spec, ssh_transport, should_cancel=cancel_after_a_second)
    assert outcome.ok is False
    assert (outcome.error, outcome.failure_kind) == ("cancelled during pgbench", FailureKind.CANCELLED)
    assert outcome.timings["pgbench"] < 10
    assert live_group_members(ssh_transport, int(seen["group"])) == []
    assert ssh_transport.exists(f"{ssh_transport.run_dir}/pgbench.pid") is False
    assert b"progress: " in outcome.artifacts["pgbench_stderr"]


def test_it_kills_what_an_earlier_trial_left_running(local_transport, installed_build):
    local_transport.start_background("pgbench", ["sleep", "300"])
    leftover = int(local_transport.get_bytes(f"{local_transport.run_dir}/pgbench.pid").split()[0])
    outcome = run_trial(
        trial(local_transport.host, installed_build, collect_sar=False, collect_wait_events=False), local_transport
    )
    assert outcome.ok is True
    assert outcome.notes[0] == f"stopped leftovers on {local_transport.host.name}: pgbench"
    assert live_group_members(local_transport, leftover) == []


def test_a_profiling_run_keeps_folded_perf_stacks_and_no_sar(local_transport, installed_build):
    spec = trial(local_transport.host, installed_build, profile_only=True, collect_perf=True)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok is True, outcome.notes
    stacks = outcome.artifacts["perf_folded"].decode().splitlines()
    assert any(line.startswith("postgres;") for line in stacks)
    assert all(int(line.rsplit(" ", 1)[1]) >= 1 for line in stacks)
    assert "sar" not in outcome.artifacts and "wait_events" not in outcome.artifacts


def test_a_build_the_host_lacks_fails_the_trial_without_raising(local_transport):
    missing = BuildSpec(name="pg-missing", kind="installed", bin_dir="/nonexistent/bin")
    outcome = run_trial(trial(local_transport.host, missing), local_transport)
    assert outcome.ok is False
    assert outcome.error.startswith("BuildInstallError: build pg-missing: no postgres")
    assert outcome.timings["total"] < 10


def postmaster_pid(transport: Transport, spec: TrialSpec) -> int | None:
    found = transport.run(["cat", f"{data_dir(spec)}/postmaster.pid"], check=False)
    return int(found.text.split()[0]) if found.ok else None


def server_status(transport: Transport, build: BuildSpec, spec: TrialSpec) -> int:
    """pg_ctl status: 0 running, 3 stopped."""
    pg_ctl = posixpath.join(build.bin_dir, "pg_ctl")
    return transport.run([pg_ctl, "-D", data_dir(spec), "status"], check=False).exit_status


def quiet_trial(host: HostSpec, build: BuildSpec, trial_id: int, **changes: object) -> TrialSpec:
    return trial(
        host, build, "pgecons-reference", trial_id=trial_id, collect_sar=False, collect_wait_events=False, **changes
    )


def test_the_next_trial_takes_over_a_kept_server_and_the_last_one_stops_it(local_transport, installed_build):
    first = run_trial(quiet_trial(local_transport.host, installed_build, 1, keep_server=True), local_transport)
    started_pid = postmaster_pid(local_transport, quiet_trial(local_transport.host, installed_build, 1))
    second = run_trial(
        quiet_trial(local_transport.host, installed_build, 2, keep_server=True, reset_data=False), local_transport
    )
    pid_after_second = postmaster_pid(local_transport, quiet_trial(local_transport.host, installed_build, 2))
    last = run_trial(quiet_trial(local_transport.host, installed_build, 3, reset_data=False), local_transport)
    assert (first.ok, second.ok, last.ok) == (True, True, True)
    assert second.tps > 0 and last.tps > 0
    assert started_pid is not None and pid_after_second == started_pid
    assert "server left running for the next trial" in first.notes + second.notes
    assert "server left running for the next trial" not in last.notes
    # No start after the first trial's: the server log shows the server got ready no more times than it had then.
    ready = b"ready to accept connections"
    assert last.artifacts["server_log"].count(ready) == first.artifacts["server_log"].count(ready)
    assert server_status(local_transport, installed_build, quiet_trial(local_transport.host, installed_build, 3)) == 3


def test_a_failed_trial_stops_the_server_it_was_asked_to_keep(local_transport, installed_build):
    spec = quiet_trial(local_transport.host, installed_build, 1, keep_server=True)
    failing = replace(spec.scenario, script="SELECT no_such_column FROM pgbench_accounts;\n")
    outcome = run_trial(replace(spec, scenario=failing), local_transport)
    assert outcome.ok is False
    assert "server left running for the next trial" not in outcome.notes
    assert server_status(local_transport, installed_build, spec) == 3


def test_a_cancelled_trial_stops_the_server_it_was_asked_to_keep(local_transport, installed_build):
    spec = quiet_trial(local_transport.host, installed_build, 1, keep_server=True)
    outcome = run_trial(spec, local_transport, should_cancel=lambda: pgbench_runs(local_transport))
    assert (outcome.ok, outcome.error) == (False, "cancelled during pgbench")
    assert server_status(local_transport, installed_build, spec) == 3


def test_a_new_attempt_with_a_reset_restarts_a_kept_server(local_transport, installed_build):
    kept = run_trial(quiet_trial(local_transport.host, installed_build, 1, keep_server=True), local_transport)
    kept_pid = postmaster_pid(local_transport, quiet_trial(local_transport.host, installed_build, 1))
    retried = run_trial(
        quiet_trial(local_transport.host, installed_build, 2, keep_server=True, reset_data=True), local_transport
    )
    assert (kept.ok, retried.ok) == (True, True)
    assert postmaster_pid(local_transport, quiet_trial(local_transport.host, installed_build, 2)) not in (
        None,
        kept_pid,
    )
    ready = b"ready to accept connections"
    assert retried.artifacts["server_log"].count(ready) == kept.artifacts["server_log"].count(ready) + 1
    run_trial(quiet_trial(local_transport.host, installed_build, 3, reset_data=False), local_transport)  # stops it


def test_it_reports_the_known_facts_without_reading_the_host_again(local_transport, installed_build):
    known = {"cpu_model": "Known CPU", "sar": "/usr/bin/sar", "kernel": "6.1.0"}
    spec = quiet_trial(local_transport.host, installed_build, 1, collect_facts=False, known_facts=known)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok is True
    assert {name: outcome.host_facts[name] for name in known} == known
    # What the build itself says (its pg_config, its server's symbols), read with the build, not with the host.
    assert set(outcome.host_facts) - set(known) == {"configure", "symbols"}
    assert "facts" not in outcome.timings
