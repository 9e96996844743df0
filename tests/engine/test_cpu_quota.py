"""A calibration's injected slowdown on a real server over SSH: the server and every backend in the work dir's cgroup,
the quota file holding the quota computed from what the server used unthrottled, and a quota of a quarter of that
use really lowering select-only TPS; the v2 layout's files and parsing on a target in memory (issue 42, point 3)."""

import os
import posixpath
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.cgroups import delegate_cgroup
from tests.fake_transport import Answer, FakeTransport
from workers.cpu_quota import (
    MEMBERSHIP_SCRIPT,
    CgroupLayout,
    CpuQuotaError,
    ServerCgroup,
    cgroup_layout,
    parse_usage_seconds,
    quota_us,
)
from workers.runner import run_trial
from workers.spec import CpuQuotaSpec, ScenarioSpec, TrialSpec
from workers.trial_cluster import prepare_cluster

V1_APART = """31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_TOGETHER = "25 24 0:22 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
V2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"


def quota_trial(host, build, quota: CpuQuotaSpec | None, **changes) -> TrialSpec:
    spec = TrialSpec(
        trial_id=1,
        study_id=42,
        db_host=host,
        client_host=host,
        build=build,
        scenario=ScenarioSpec(slug="reference", builtin="select-only"),
        clients=2,
        threads=1,
        duration_s=2,
        scale=1,
        pg_settings={"shared_buffers": "32MB"},
        cpu_quota=quota,
    )
    return replace(spec, **changes)


def test_the_mount_table_says_which_files_hold_the_quota_and_the_use():
    apart, together, unified = cgroup_layout(V1_APART), cgroup_layout(V1_TOGETHER), cgroup_layout(V2)
    assert apart == CgroupLayout("v1", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct")
    assert together == CgroupLayout("v1", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct")
    assert unified == CgroupLayout("v2", "/sys/fs/cgroup", "/sys/fs/cgroup")
    assert cgroup_layout("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n") is None
    child = unified.delegated("bench").child("/srv/bench")
    assert child.quota_file() == child.quota_dir + "/cpu.max" and child.usage_file() == child.quota_dir + "/cpu.stat"
    assert child.quota_writes(45_000) == {child.quota_dir + "/cpu.max": "45000 100000"}
    assert child.quota_writes(None) == {child.quota_dir + "/cpu.max": "max 100000"}
    assert (
        apart.delegated("bench")
        .child("/srv/bench")
        .quota_writes(None)[
            "/sys/fs/cgroup/cpu/benchdash-bench/" + child.quota_dir.rsplit("/", 1)[1] + "/cpu.cfs_quota_us"
        ]
        == "-1"
    )


def test_the_use_is_read_from_cpu_stat_on_v2_and_cpuacct_usage_on_v1():
    assert parse_usage_seconds("v2", "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n") == 2.5
    assert parse_usage_seconds("v1", "1500000000\n") == 1.5
    assert quota_us(1.6, 5) == 152_000
    assert quota_us(0.001, 50) == 1_000  # the kernel's floor
    for cores, slowdown in ((1.6, 0), (1.6, 95), (0.0, 5)):
        with pytest.raises(CpuQuotaError):
            quota_us(cores, slowdown)


def _v2_target(*, delegated: bool) -> FakeTransport:
    def answer(argv: list[str]) -> Answer:
        if argv[:2] == ["id", "-un"]:
            return Answer(stdout=b"bench\n")
        if argv[0] == "test":
            return Answer(0 if delegated else 1)
        if argv[:2] == ["sh", "-c"] and len(argv) == 6:  # WRITE_SCRIPT: the file holds what was written
            transport.files[argv[4]] = argv[5].encode() + b"\n"
        return Answer()

    transport = FakeTransport(answer)
    transport.files["/proc/self/mountinfo"] = V2.encode()
    return transport


def test_on_v2_the_quota_goes_to_cpu_max_of_the_work_dirs_cgroup():
    transport = _v2_target(delegated=True)
    cgroup = ServerCgroup(transport, "/srv/bench")
    cgroup.set_quota(76_000)
    quota_dir = cgroup.dirs.quota_dir
    assert quota_dir.startswith("/sys/fs/cgroup/benchdash-bench/server-")
    assert transport.files[quota_dir + "/cpu.max"] == b"76000 100000\n"
    assert ["mkdir", "-p", quota_dir] in transport.asked
    assert cgroup.dirs.join_prefix()[-2:] == [quota_dir + "/cgroup.procs"] * 2


def test_without_a_delegated_cgroup_the_refusal_names_the_root_command():
    transport = _v2_target(delegated=False)
    with pytest.raises(CpuQuotaError) as refused:
        ServerCgroup(transport, "/srv/bench").set_quota(None)
    command = "sudo sh -c 'echo +cpu > /sys/fs/cgroup/cgroup.subtree_control && mkdir -p /sys/fs/cgroup/benchdash-bench"
    assert "has delegated no cgroup (v2) to bench: as root there, run: " + command in str(refused.value)
    assert not any(argv[0] == "mkdir" for argv in transport.asked)


def test_an_account_name_that_is_no_plain_name_never_reaches_a_path():
    with pytest.raises(CpuQuotaError, match="not one benchdash puts"):
        cgroup_layout(V2).delegated("bench; rm -rf /")


def test_the_server_and_its_backends_run_in_the_cgroup_under_the_quota_written(
    ssh_target, ssh_transport, installed_build, running_clusters
):
    delegate_cgroup(ssh_target.username)
    spec = quota_trial(ssh_target, installed_build, CpuQuotaSpec(quota_us=None))
    cluster = prepare_cluster(ssh_transport, spec)
    running_clusters.append(cluster)
    assert cluster.cgroup is not None
    dirs = cluster.cgroup.dirs
    assert dirs.quota_dir.startswith(f"/sys/fs/cgroup/cpu/benchdash-{ssh_target.username}/server-")
    cluster.cgroup.set_quota(quota_us(1.2, 50))
    assert Path(dirs.quota_dir + "/cpu.cfs_quota_us").read_text() == "60000\n"
    assert Path(dirs.quota_dir + "/cpu.cfs_period_us").read_text() == "100000\n"
    pid = cluster.postmaster_pid()
    members = {path: Path(path).read_text().split() for path in dirs.procs_files()}
    backends = ssh_transport.run(["ps", "-o", "pid=", "--ppid", pid]).text.split()
    assert len(backends) >= 3  # checkpointer, background writer, walwriter...
    for listed in members.values():
        assert {pid, *backends} <= set(listed)
    assert cluster.cgroup.missing(pid) == []
    cluster.cgroup.set_quota(None)
    assert Path(dirs.quota_dir + "/cpu.cfs_quota_us").read_text() == "-1\n"


def test_a_quota_of_a_quarter_what_the_server_used_lowers_select_only_tps(ssh_target, ssh_transport, installed_build):
    delegate_cgroup(ssh_target.username)
    free = run_trial(quota_trial(ssh_target, installed_build, CpuQuotaSpec(None)), ssh_transport)
    assert free.ok, free.error
    assert free.server_cores is not None and 0.2 < free.server_cores <= 2.05
    # A quarter, not a half: one free run on a loaded 2-core machine may itself get little CPU, and a half of that
    # slowed a run by 15% only once (a fresh clone's run beside nothing else)
    quartered = CpuQuotaSpec(quota_us(free.server_cores, 75))
    slowed = run_trial(quota_trial(ssh_target, installed_build, quartered, trial_id=2), ssh_transport)
    assert slowed.ok, slowed.error
    assert slowed.tps is not None and free.tps is not None
    assert slowed.tps < 0.7 * free.tps
    assert slowed.server_cores is not None and slowed.server_cores < 0.5 * free.server_cores
    assert any("quota" in note for note in slowed.notes)
    # the quota is lifted after the run: what comes next on the host is not slowed
    layout = cgroup_layout(Path("/proc/self/mountinfo").read_text())
    assert layout is not None
    dirs = layout.delegated(ssh_target.username).child(ssh_target.work_dir)
    assert Path(posixpath.join(dirs.quota_dir, "cpu.cfs_quota_us")).read_text() == "-1\n"


def test_a_server_process_that_ended_after_ps_listed_it_is_not_called_outside_its_cgroup(tmp_path):
    ended = subprocess.Popen(["true"])
    ended.wait()  # its pid is free again: a backend that closed between ps and the read of cgroup.procs
    with subprocess.Popen(["sleep", "30"]) as outside:
        fake_ps = tmp_path / "ps"
        fake_ps.write_text(f"#!/bin/sh\necho {ended.pid}\necho {outside.pid}\n")
        fake_ps.chmod(0o755)
        procs = tmp_path / "cgroup.procs"
        procs.write_text(f"{os.getpid()}\n")
        env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
        argv = ["sh", "-c", MEMBERSHIP_SCRIPT, "sh", str(os.getpid()), str(procs)]
        found = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
        outside.kill()
    assert found.splitlines() == [f"{outside.pid}\t{procs}"]
