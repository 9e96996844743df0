"""A host is known when it is registered: register_local, pin_host_key and the admin read its facts, so that the
first preview of a study refuses what the host cannot run; facts read before the host's last boot are read again."""

import io
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone, translation

from benchdash.inventory.host_facts import host_facts_read, host_facts_refresh, host_facts_wanted
from benchdash.inventory.models import FactsState, Host
from benchdash.studies.forms import StudyForm
from tests.factories import BuildFactory, HostFactory, ScenarioFactory
from workers.host_lock import HeldLock, host_lock
from workers.transport import connect

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def command(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def memory_bytes() -> int:
    line = next(line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal:"))
    return int(line.split()[1]) * 1024


def boot_time() -> int:
    return int(Path("/proc/stat").read_text().split("btime ")[1].split()[0])


def installed_locales() -> list[str]:
    return subprocess.run(["locale", "-a"], capture_output=True, text=True, check=True).stdout.split()


def ssh_host(target, **changes) -> Host:
    fields = {name: getattr(target, name) for name in ("address", "port", "username", "key_path", "work_dir")}
    return HostFactory(name=target.name, **{**fields, **changes})


def test_register_local_reads_the_local_host_s_memory_cpus_and_locales():
    output = command("register_local")
    host = Host.objects.get(name="local")
    assert host.facts_state == FactsState.READ and host.facts_updated_at is not None
    assert (host.facts["cpu_threads"], host.facts["memory_bytes"]) == (os.cpu_count(), memory_bytes())
    assert host.facts["locales"] == installed_locales() and host.facts["pgbench_path"]
    assert f"local: facts read: {os.cpu_count()} CPUs, {memory_bytes() / 2**30:.1f} GiB" in output


def test_the_first_preview_on_a_host_just_registered_refuses_what_it_cannot_run():
    command("register_local")
    local = Host.objects.get(name="local")
    build = BuildFactory(name="pg15", version="15.20", bin_dir="/usr/lib/postgresql/15/bin")
    scenario = ScenarioFactory(slug="pgecons-update", builtin="simple-update", reset="once", fillfactor=100)
    too_big = memory_bytes() // 2**30 + 1
    data = {
        "title": "just registered",
        "year": "2026",
        "db_host": local.pk,
        "builds": [build.pk],
        "baseline": build.pk,
        "scenarios": [scenario.pk],
        "client_levels": "1",
        "repetitions": "1",
        "duration_s": "1",
        "scale": "1",
        "pg_settings": f"shared_buffers = {too_big}GB",
        "seed": "1",
        "vary": f"cpus=1,{os.cpu_count() + 1}\nlocale=C,xx_XX.UTF-8",
    }
    form = StudyForm(data)
    assert not form.is_valid()
    assert "the server cannot start (could not map anonymous shared memory)" in form.errors["pg_settings"][0]
    cpus = os.cpu_count() + 1
    assert f"pg15 cpus={cpus} locale=C: {cpus} CPUs, and local has {cpus - 1}." in form.errors["vary"]
    refused = [message for message in form.errors["vary"] if "has no locale" in message]
    assert [message.split(":")[0] for message in refused] == [
        "pg15 cpus=1 locale=xx_XX.UTF-8",
        f"pg15 cpus={cpus} locale=xx_XX.UTF-8",
    ]
    listed = ", ".join(installed_locales())
    assert refused[0].endswith(f": local has no locale xx_XX.UTF-8 (locale -a lists {listed}).")


def test_pin_host_key_reads_the_facts_of_the_host_it_pinned(ssh_target):
    host = ssh_host(ssh_target, host_key="")
    output = command("pin_host_key", host.name, "--yes")
    host.refresh_from_db()
    assert host.host_key == ssh_target.host_key
    assert host.facts_state == FactsState.READ and host.facts["cpu_threads"] == os.cpu_count()
    assert f"{host.name}: facts read: {os.cpu_count()} CPUs" in output


def test_a_host_whose_facts_cannot_be_read_keeps_the_reason_and_the_host_page_shows_it(client, member, ssh_target):
    host = ssh_host(ssh_target, host_key=ssh_target.host_key, username="nobody-here")
    assert host_facts_read(host_id=host.pk).facts_state == FactsState.FAILED
    host.refresh_from_db()
    assert host.facts == {} and f"cannot log in as nobody-here@127.0.0.1:{ssh_target.port}" in host.facts_error
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Reading the facts failed: cannot log in as nobody-here" in page


def test_saving_a_host_in_the_admin_has_its_facts_read_after_the_save_commits(
    admin_client, ssh_target, django_capture_on_commit_callbacks
):
    wanted: list[dict] = []
    host_facts_wanted.connect(lambda **kwargs: wanted.append(kwargs), weak=False, dispatch_uid="test-wanted")
    fields = {name: getattr(ssh_target, name) for name in ("address", "port", "username", "key_path", "work_dir")}
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = admin_client.post(
                reverse("admin:inventory_host_add"), {"name": "db9", "host_key": ssh_target.host_key, **fields}
            )
            assert response.status_code == 302
            host = Host.objects.get(name="db9")
            assert host.facts_state == FactsState.READING and wanted == []  # nothing before the commit
        for callback in callbacks:
            callback()
    finally:
        host_facts_wanted.disconnect(dispatch_uid="test-wanted")
    assert [(sent["host_id"], sent["host_name"]) for sent in wanted] == [(host.pk, "db9")]
    page = admin_client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert "Being read from the host now" in page.content.decode()
    assert host_facts_read(host_id=host.pk).facts_state == FactsState.READ  # what the task does on the worker


def test_facts_read_before_the_host_s_last_boot_are_read_again_before_a_study(local_target):
    stale = {"cpu_threads": 999, "boot_time": boot_time() - 3600}
    host = HostFactory(name="local", address="", work_dir=local_target.work_dir, facts=stale)
    assert host_facts_refresh(host_id=host.pk) is True
    host.refresh_from_db()
    assert host.facts["cpu_threads"] == os.cpu_count() and host.facts["boot_time"] == boot_time()
    assert host_facts_refresh(host_id=host.pk) is False  # read since the boot: not read again


def test_a_facts_read_that_reaches_the_host_clears_its_waiting_for_host_note(local_target):
    host = HostFactory(name="local", address="", work_dir=local_target.work_dir, unreachable_since=timezone.now())

    host_facts_read(host_id=host.pk)

    assert Host.objects.get(pk=host.pk).unreachable_since is None


STAGING = "6f1d3a52-0000-4000-8000-000000000001"  # another installation sharing the host


def test_a_facts_read_finds_another_installation_s_trial_waits_for_it_and_runs_nothing_beside_it(
    client, member, local_target
):
    """The facts script runs pgbench --version: never beside another installation's trial (workers/host_lock.py)."""
    host = HostFactory(name="local", address="", work_dir=local_target.work_dir, facts={"cpu_threads": 999})
    with connect(host.whole_spec().for_installation(STAGING)) as staging, host_lock(staging):
        started = time.monotonic()
        assert host_facts_read(host_id=host.pk, wait_s=2).facts_state == FactsState.BUSY
        assert time.monotonic() - started >= 2  # it waited for the lock before it gave up
    host.refresh_from_db()
    assert host.facts == {"cpu_threads": 999} and host.busy_with == STAGING  # nothing read, the holder noted
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert f"別の benchdash インストール（{STAGING}）" in page and "facts-busy" in page

    read = host_facts_read(host_id=host.pk)  # the other installation's trial ended
    assert (read.facts_state, read.facts["cpu_threads"], read.busy_with) == (FactsState.READ, os.cpu_count(), "")


def test_a_facts_read_goes_on_once_another_installation_s_trial_lets_go_of_the_host(local_target):
    host = HostFactory(name="local", address="", work_dir=local_target.work_dir)
    with connect(host.whole_spec().for_installation(STAGING)) as staging:
        lock = HeldLock(staging)
        lock.take()
        threading.Timer(1, lock.release).start()
        read = host_facts_read(host_id=host.pk, wait_s=30)
    assert read.facts_state == FactsState.READ and read.facts["cpu_threads"] == os.cpu_count()


def test_register_local_says_the_host_is_busy_and_reads_nothing(local_target, monkeypatch):
    from benchdash.inventory.management.commands import register_local

    monkeypatch.setattr(register_local, "COMMAND_LOCK_WAIT_S", 0)
    host = HostFactory(name="local", address="", work_dir=local_target.work_dir)
    with connect(host.whole_spec().for_installation(STAGING)) as staging, host_lock(staging):
        output = command("register_local")
    busy = f"host local is busy with another benchdash installation ({STAGING})"
    assert f"local: facts not read, nothing run there: {busy}; run this again once it is free" in output
    assert Host.objects.get(name="local").facts_state == FactsState.BUSY
