"""pgbench as the seeds ran it, in real trials (issue 41, point 3): -j 2 -c 2, pgbench vacuuming first (no -n),
TPC-B-like with more clients than the scale, and the pgbench of a build chosen for the study: Debian's 15 against an
archive's 16, and pgbench 13 (Debian 11's), whose TPS including connection establishment the trial keeps."""

import os
import posixpath
import shlex
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.engine.test_runner import trial
from tests.sshd import run_user_account
from workers.pgbench import parse_pgbench_output
from workers.runner import run_trial
from workers.spec import BuildSpec, ScenarioSpec
from workers.transport import Transport

pytestmark = [pytest.mark.slow, pytest.mark.shared_pristine_data]
QUIET = {"collect_sar": False, "collect_wait_events": False, "duration_s": 1}


def test_two_threads_for_two_clients_with_pgbench_vacuuming_first(local_transport: Transport, installed_build):
    spec = trial(local_transport.host, installed_build, threads=2, pgbench_vacuum=True, **QUIET)
    outcome = run_trial(spec, local_transport)

    assert outcome.ok, outcome.error
    argv = shlex.split(outcome.command)
    assert "-n" not in argv and argv[argv.index("-j") + 1] == "2"
    assert b"starting vacuum" in outcome.artifacts["pgbench_stderr"]
    printed = parse_pgbench_output(outcome.artifacts["pgbench_stdout"].decode())
    assert (printed.clients, printed.threads) == (2, 2)


def test_by_default_pgbench_runs_with_no_vacuum(local_transport: Transport, installed_build):
    outcome = run_trial(trial(local_transport.host, installed_build, **QUIET), local_transport)
    assert outcome.ok, outcome.error
    assert "-n" in shlex.split(outcome.command)
    assert b"starting vacuum" not in outcome.artifacts["pgbench_stderr"]


def test_tpcb_with_more_clients_than_branches_runs(local_transport: Transport, installed_build):
    spec = trial(local_transport.host, installed_build, clients=4, threads=2, scale=1, **QUIET)
    spec = replace(spec, scenario=ScenarioSpec(slug="tpcb", builtin="tpcb-like"), fillfactor=None)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok, outcome.error
    printed = parse_pgbench_output(outcome.artifacts["pgbench_stdout"].decode())
    assert (printed.clients, printed.scaling_factor, printed.transaction_type) == (4, 1, "<builtin: TPC-B (sort of)>")


def test_the_study_s_pgbench_build_runs_on_the_pgbench_host_and_its_version_is_kept(
    local_transport: Transport, installed_build, archive_build
):
    spec = trial(local_transport.host, archive_build, pgbench_build=installed_build, **QUIET)
    outcome = run_trial(spec, local_transport)

    assert outcome.ok, outcome.error
    assert outcome.command.startswith(f"{installed_build.bin_dir}/pgbench ")
    assert outcome.pgbench_version.split(".")[0] == "15"
    assert outcome.server_version.split(".")[0] == archive_build.version.split(".")[0]
    assert outcome.tps_including_connections is None  # 15 prints one TPS, without the initial connection time


def test_pgbench_13_of_a_build_gives_the_tps_including_connections(
    local_transport: Transport, installed_build, pgbench_13: Path
):
    build = pgbench_13_build(local_transport, installed_build, pgbench_13)
    outcome = run_trial(trial(local_transport.host, installed_build, pgbench_build=build, **QUIET), local_transport)

    assert outcome.ok, outcome.error
    assert outcome.pgbench_version == "13.16"
    assert outcome.tps is not None and outcome.tps_including_connections is not None
    assert 0 < outcome.tps_including_connections <= outcome.tps


def test_a_build_that_ships_no_pgbench_fails_the_trial_saying_so(local_transport: Transport, installed_build):
    bin_dir = posixpath.join(local_transport.host.work_dir, "no-pgbench", "bin")
    link_all = 'mkdir -p -- "$2" && for tool in "$1"/*; do ln -s -- "$tool" "$2"/; done && rm -- "$2/pgbench"'
    local_transport.run(["sh", "-c", link_all, "sh", installed_build.bin_dir, bin_dir])
    build = replace(installed_build, name="no-pgbench", bin_dir=bin_dir)
    outcome = run_trial(trial(local_transport.host, installed_build, pgbench_build=build, **QUIET), local_transport)
    assert not outcome.ok
    assert f"build no-pgbench ships no pgbench on local: {bin_dir}/pgbench is missing" in outcome.error


def pgbench_13_build(transport: Transport, server: BuildSpec, pgbench_13: Path) -> BuildSpec:
    """A build in the work dir of the account local commands run as: the server's tools, and pgbench 13 with the
    OpenSSL 1.1 it needs (copied there: the fixture's files are root's own)."""
    root = Path(transport.host.work_dir, "pgbench-13-build")
    shutil.copytree(pgbench_13.parent / "usr", root / "usr", symlinks=True)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for tool in os.listdir(server.bin_dir):
        if tool != "pgbench":
            (bin_dir / tool).symlink_to(posixpath.join(server.bin_dir, tool))
    libraries, binary = root / "usr/lib/x86_64-linux-gnu", root / "usr/lib/postgresql/13/bin/pgbench"
    (bin_dir / "pgbench").write_text(f'#!/bin/sh\nLD_LIBRARY_PATH="{libraries}" exec "{binary}" "$@"\n')
    (bin_dir / "pgbench").chmod(0o755)
    account = run_user_account()
    for path in [root, *root.rglob("*")]:
        os.lchown(path, account.pw_uid, account.pw_gid)
    return replace(server, name="pgbench-13", bin_dir=str(bin_dir))
