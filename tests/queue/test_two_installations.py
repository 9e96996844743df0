"""Two installations share a target (issue 39, point 4): a staging and a production dashboard, each its own store,
Redis and worker, run a study each on one sshd target. The host-wide lock (workers/host_lock.py) makes one wait for
the other: no attempt is fenced off or thrown away, no two runs overlap on the target, the waiting study's page says
whom it waits for, and clearing one installation's work dir leaves the other's files."""

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from django.urls import reverse
from psycopg import sql

from benchdash.inventory.models import Installation
from benchdash.queue.work_dir import clear_host_clusters
from benchdash.studies.models import Attempt, Study
from tests.queue.conftest import ROOT, Processes, point_app_at, worker_env
from tests.queue.support import (
    MIB,
    form_data,
    leftover_cluster,
    own_work_dir,
    paced_reference_scenario,
    register_build,
    register_host,
    wait_for,
)
from tests.sshd import SshServer, sshd_server
from tests.store_template import drop_database, store_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The second installation's rows and study, made by its own process on its own store.
# Its runs take 3 s: the first installation's study, queued once the second's first run is seen, meets it still
# running after the form's post and the noise check's connection, even on a loaded machine.
QUEUE_SECOND = """
from django.core.management import call_command
from benchdash.studies.preset_sync import presets_sync
from tests.queue.support import paced_reference_scenario, register_build, register_host
from workers.spec import BuildSpec, HostSpec
presets_sync()
paced_reference_scenario()
host, build = register_host({host!r}), register_build({build!r})
call_command("queue_study", "--host", host.name, "--builds", build.major, "--scenarios", "paced-reference",
             "--clients", "1,2", "--repetitions", "1", "--duration", "3", "--no-sar", "--no-wait-events",
             "--title", "second")
"""
READ_SECOND = """
import json
from benchdash.inventory.models import Host, Installation
from benchdash.studies.lifecycle.specs import host_spec
from benchdash.studies.models import Attempt, Study
study = Study.objects.get(title="second")
attempts = Attempt.objects.filter(trial__study=study)
print(json.dumps({
    "status": study.status,
    "installation": Installation.current_token(),
    "attempts": list(attempts.values_list("result", "error")),
    "work_dir": host_spec(Host.objects.get()).work_dir,
}))
"""


@pytest.fixture
def second_store() -> Iterator[str]:
    """The second installation's store: a database of its own, a copy of the migrated template."""
    name = f"{connection.settings_dict['NAME']}_second"
    template = connection.settings_dict["TEST"]["TEMPLATE"]
    with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
        drop_database(maintenance, name)
        create = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
        maintenance.execute(create)
    yield name
    with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
        drop_database(maintenance, name)


@pytest.fixture
def shared_target() -> Iterator[SshServer]:
    with sshd_server("shared-target") as server:
        yield server


class PgbenchWatch:
    """Every pgbench process that loads data or runs, started through the target's sshd, from /proc every 50 ms: the
    most that ran at once on the target. A `pgbench --version` (the host's facts, read before a study under the lock
    too) is no run: a test that took one for the second installation's first trial queued the first installation's
    study while the host was free, and the first never waited (a fresh clone's failure). Other checkouts' tests on
    this machine run pgbench as the same account: a process is the target's when its SSH_CONNECTION names the
    target's port. Two at once would overlap for hundreds of ms at least (a data load at scale 1, a run of 1 s or
    more), and a scan's CPU grows with the machine's processes: a shorter period would only take CPU from the tests
    beside this one."""

    def __init__(self, port: int) -> None:
        self.through = f" {port}".encode()
        self.most_at_once = 0
        self.seen: set[int] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def watch(self) -> None:
        while not self.stop.wait(0.05):
            running = {pid for pid in pgbench_pids() if self.started_through_the_target(pid) and loads_or_runs(pid)}
            self.seen |= running
            self.most_at_once = max(self.most_at_once, len(running))

    def started_through_the_target(self, pid: int) -> bool:
        try:
            environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            return False
        return any(line.startswith(b"SSH_CONNECTION=") and line.endswith(self.through) for line in environment)


def loads_or_runs(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"--version" not in argv


def pgbench_pids() -> set[int]:
    pids = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/comm", "rb") as comm:
                    if comm.read() == b"pgbench\n":
                        pids.add(int(name))
            except OSError:
                continue
    return pids


def run_shell(code: str, database: str, broker_url: str) -> str:
    """code run against another store in a process of the app, as the workers run: not through manage.py, which as
    root becomes var/'s owner (benchdash/var_owner.py) and could not reach the root-owned test target's work dir."""
    env = worker_env(broker_url, DATABASE_URL=store_url(database), DJANGO_SETTINGS_MODULE="benchdash.settings")
    argv = [sys.executable, "-c", f"import django\ndjango.setup()\n{code}"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_two_installations_take_turns_on_a_shared_target_without_a_wasted_attempt(
    client, member, presets, celery_processes, redis_server, second_store, shared_target, installed_build, tmp_path
):
    target = shared_target.spec
    watch = PgbenchWatch(target.port)
    watch.thread.start()
    second = Processes(redis_server.url, tmp_path / "second")
    (tmp_path / "second").mkdir()
    second.env = {"DATABASE_URL": store_url(second_store)}
    point_app_at(celery_processes.broker_url)  # this process queues the first installation's study

    def read_second() -> dict:
        return json.loads(run_shell(READ_SECOND, second_store, redis_server.url))

    try:
        second.worker("second")
        # Up, and serving the host, before the second's trials run, so that one of the first's meets them.
        host, build = register_host(target), register_build(installed_build)
        celery_processes.worker("first")
        run_shell(QUEUE_SECOND.format(host=target, build=installed_build), second_store, redis_server.url)
        wait_for(lambda: watch.seen, 120, "the second installation's first trial to load its data or run pgbench")

        data = form_data(host=host, builds=[build], baseline=build, scenarios=[paced_reference_scenario()])
        client.post(reverse("studies:new"), {**data, "collect_sar": "", "collect_wait_events": ""})
        study = Study.objects.get(title="queue test")
        busy_with: set[str] = set()
        progress = reverse("studies:progress", args=[study.pk])

        def first_ended() -> bool:
            busy_with.update(wait.get("busy_with", "") for wait in client.get(progress).json()["waiting"])
            return Study.objects.get(pk=study.pk).status not in ("queued", "running")

        wait_for(first_ended, 240, "the first installation's study to end", every=0.2)

        def second_ended() -> bool:
            return read_second()["status"] not in ("queued", "running")

        wait_for(second_ended, 120, "the second installation's study to end", every=1)
    finally:
        watch.stop.set()
        second.stop_all()

    second_seen = read_second()
    first_attempts = list(Attempt.objects.filter(trial__study=study).values_list("result", "error"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, first_attempts
    assert second_seen["status"] == Study.Status.DONE, second_seen
    # Every attempt ran its trial to the end: none fenced off, none thrown away, one each.
    assert first_attempts == [("succeeded", "")] * 2
    assert [tuple(attempt) for attempt in second_seen["attempts"]] == [("succeeded", "")] * 2
    assert watch.most_at_once == 1 and len(watch.seen) >= 4  # a data load and two runs at least, never two at once
    assert second_seen["installation"] in busy_with, busy_with  # the page said whom the study waited for

    # Clearing the first installation's work dir leaves the second's data, which its usage never counted.
    # A cluster of the second installation's naming a study the first store does not know: the first's clear would
    # remove it, were it its own.
    leftover = leftover_cluster(second_seen["work_dir"], "ended-s1-f100", study.pk + 1000, target.username)
    host.refresh_from_db()
    clear_host_clusters(host, clear_kept=True)
    host.refresh_from_db()
    assert leftover.exists() and (leftover / "data" / "base").stat().st_size == 3 * MIB
    assert host.work_dir_usage["clusters"] == 0 and own_work_dir(host) != second_seen["work_dir"]
    assert own_work_dir(host).endswith(Installation.current_token())
