"""Host facts, read from the real machine locally and over SSH, and the parsers on fixed text."""

import os
import subprocess
from pathlib import Path

from workers.facts import (
    bracketed_choice,
    collect_host_facts,
    cpu_facts,
    disk_space,
    filesystem_facts,
    read_boot_time,
    turbo,
)
from workers.initdb_options import locale_installed
from workers.transport import connect


def test_it_counts_the_cpu_threads_of_the_local_machine(local_target):
    with connect(local_target) as transport:
        facts = collect_host_facts(transport, local_target.work_dir)
    assert facts["cpu_threads"] == os.cpu_count()
    assert facts["kernel"] == os.uname().release
    assert facts["memory_bytes"] > 100 * 2**20
    assert isinstance(facts["fs_type"], str)
    assert len(facts["load_average"]) == 3


def test_it_reads_the_free_space_under_the_work_directory(local_target):
    with connect(local_target) as transport:
        facts = collect_host_facts(transport, local_target.work_dir + "/not/yet/created")
    stat = os.statvfs(local_target.work_dir)
    assert abs(facts["disk_free_bytes"] - stat.f_bavail * stat.f_frsize) < 256 * 2**20
    assert facts["disk_size_bytes"] == stat.f_blocks * stat.f_frsize


def test_it_reads_df_when_the_mount_point_has_spaces_and_nothing_when_df_printed_nothing():
    output = "Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sdb1 2048 1024 1000 51% /mnt/my disk\n"
    assert disk_space(output) == {"disk_free_bytes": 1000 * 1024, "disk_size_bytes": 2048 * 1024}
    assert disk_space("") == {"disk_free_bytes": None, "disk_size_bytes": None}


def test_it_reads_the_same_facts_over_ssh(ssh_target):
    with connect(ssh_target) as transport:
        facts = collect_host_facts(transport, ssh_target.work_dir + "/not/yet/created")
    assert facts["cpu_threads"] == os.cpu_count()
    assert facts["kernel"] == os.uname().release
    assert f'PRETTY_NAME="{facts["os_release"]}"' in Path("/etc/os-release").read_text()
    detected = subprocess.run(["systemd-detect-virt"], capture_output=True, text=True, check=False).stdout.strip()
    assert facts["virtualization"] == (detected or ("docker" if Path("/.dockerenv").exists() else None))


def test_it_reports_the_tools_with_their_versions_or_none(local_target):
    with connect(local_target) as transport:
        facts = collect_host_facts(transport, local_target.work_dir)
    assert facts["pgbench"].startswith("pgbench (PostgreSQL)")
    assert facts["sar"].startswith("sysstat version")
    assert facts["perf"] is None or facts["perf"].startswith("perf version")


def test_it_flattens_nested_lscpu_output():
    lscpu = (
        '{"lscpu": [{"field": "CPU(s):", "data": "64"}, {"field": "Model name:", "data": "Xeon", "children": ['
        '{"field": "Thread(s) per core:", "data": "2"}, {"field": "Core(s) per socket:", "data": "16"},'
        '{"field": "Socket(s):", "data": "2"}]}]}'
    )
    facts = cpu_facts(lscpu, "")
    assert facts["cpu_model"] == "Xeon"
    assert (facts["cpu_sockets"], facts["cpu_cores"], facts["cpu_threads"], facts["threads_per_core"]) == (2, 32, 64, 2)


def test_it_falls_back_to_nproc_without_lscpu():
    assert cpu_facts("", "8")["cpu_threads"] == 8
    assert cpu_facts("", "8")["cpu_model"] is None


def test_it_reads_turbo_from_intel_pstate_or_cpufreq_boost():
    assert turbo("1", "") is False
    assert turbo("0", "") is True
    assert turbo("", "1") is True
    assert turbo("", "") is None


def test_it_picks_the_bracketed_transparent_huge_pages_mode():
    assert bracketed_choice("always [madvise] never") == "madvise"
    assert bracketed_choice("") is None


def test_it_finds_the_disk_under_a_partition():
    findmnt = '{"filesystems": [{"source": "/dev/sda2", "fstype": "xfs", "target": "/data", "options": "rw"}]}'
    lsblk = (
        '{"blockdevices": [{"name": "sda2", "type": "part", "model": null, "rota": false, "size": "1T",'
        ' "children": [{"name": "sda", "type": "disk", "model": "INTEL SSD", "rota": false, "size": "2T"}]}]}'
    )
    facts = filesystem_facts(findmnt, lsblk)
    assert (facts["fs_type"], facts["device"], facts["disk"], facts["disk_rotational"]) == (
        "xfs",
        "/dev/sda2",
        "sda INTEL SSD 2T",
        False,
    )


def test_it_tolerates_a_filesystem_it_cannot_read():
    assert filesystem_facts("", "")["fs_type"] is None


def test_it_reads_the_locales_and_the_boot_time_of_the_host(local_target):
    with connect(local_target) as transport:
        facts = collect_host_facts(transport, local_target.work_dir)
        booted_at = read_boot_time(transport)
    installed = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=True).stdout.split()
    assert facts["locales"] == installed
    assert facts["boot_time"] == booted_at == int(Path("/proc/stat").read_text().split("btime ")[1].split()[0])


def test_it_matches_a_locale_whatever_the_spelling_of_its_codeset():
    installed = ["C", "C.utf8", "POSIX", "ja_JP.eucjp", "ja_JP.utf8", "sr_RS.utf8@latin"]
    assert locale_installed("ja_JP.UTF-8", installed) and locale_installed("ja_JP.EUC-JP", installed)
    assert locale_installed("sr_RS.UTF-8@latin", installed) and locale_installed("C", installed)
    assert not locale_installed("de_DE.UTF-8", installed) and not locale_installed("sr_RS.UTF-8", installed)
