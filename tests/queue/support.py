"""Helpers of the queue tests: rows for hosts and builds, the form's data, waiting, a store outage."""

import json
import os
import pwd
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
from django.db import connection
from django.urls import reverse
from psycopg import sql

from benchdash.inventory.management.commands.register_local import postgres_version
from benchdash.inventory.models import Build, Host
from benchdash.studies.lifecycle.specs import host_spec
from benchdash.studies.models import Artifact, Attempt, Scenario, Study, Trial
from tests.sshd import run_user_account
from tests.store_template import store_url
from workers.pristine import PRISTINE_DIR
from workers.spec import BuildSpec, HostSpec

MIB = 1024 * 1024


def wait_for(predicate: Callable[[], object], timeout: float, what: str, every: float = 0.3) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def own_work_dir(host: Host) -> str:
    """This installation's part of the host's work dir (HostSpec.for_installation), where its trials leave files."""
    return host_spec(host).work_dir


def register_host(spec: HostSpec) -> Host:
    fields = {name: getattr(spec, name) for name in ("address", "port", "username", "key_path", "host_key", "work_dir")}
    host, _ = Host.objects.update_or_create(name=spec.name, defaults=fields)
    share_pristine_link(spec.work_dir, own_work_dir(host))
    return host


def share_pristine_link(work_dir: str, own: str) -> None:
    """A local target that shares the session's pristine data (tests/sshd.py local_target) shares it in this
    installation's part of its work dir too, made here as the target's account would make it."""
    link = Path(work_dir, PRISTINE_DIR)
    if not link.is_symlink() or os.path.lexists(Path(own, PRISTINE_DIR)):
        return
    owner = os.stat(work_dir)
    Path(own).mkdir(mode=0o700, exist_ok=True)
    os.chown(own, owner.st_uid, owner.st_gid)
    os.symlink(os.readlink(link), Path(own, PRISTINE_DIR))


def register_build(spec: BuildSpec) -> Build:
    version = spec.version or postgres_version(spec.bin_dir)
    fields = {"version": version, "kind": spec.kind, "bin_dir": spec.bin_dir, "archive_path": spec.archive_path}
    fields["archive_integrity"] = spec.archive_integrity
    build, _ = Build.objects.update_or_create(name=spec.name, defaults=fields)
    return build


def form_data(*, host, builds, baseline, scenarios, clients="1,2", repetitions="1", duration="1", **extra) -> dict:
    data = {
        "title": "queue test",
        "year": "2025",
        "db_host": host.pk,
        "client_host": "",
        "builds": [build.pk for build in builds],
        "baseline": baseline.pk,
        "scenarios": [scenario.pk for scenario in scenarios],
        "client_levels": clients,
        "repetitions": repetitions,
        "duration_s": duration,
        "scale": "1",
        "pg_settings": "shared_buffers = 64MB\nmax_connections = 20",
        "seed": "2025",
        "queue": "1",
    }
    data.update(extra)
    return data


def pgbench_pid(work_dir: str) -> int | None:
    """The pid of the pgbench the runner started in the background on this work dir, while it runs."""
    return background_pid(work_dir, "pgbench")


def background_pid(work_dir: str, name: str) -> int | None:
    """The process group of the background command `name` the runner started on this work dir, while it runs."""
    try:
        pid = int(Path(work_dir, "run", f"{name}.pid").read_text().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return None
    return pid if process_alive(pid) else None


def process_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def paced_reference_scenario() -> Scenario:
    """pgecons-reference with a 20 ms pause after each transaction, for the tests whose trials only have to run:
    while a fault comes (a killed worker, a cancel, an outage), to leave files, rows and clusters behind, or in a
    study whose test reads no figure's size or spread (scale-out, many studies, the version matrix...). The
    reference script keeps a core busy for the whole run, taken from the rest of the suite. The same data, reset
    and prewarm; pgbench still measures (about 45 transactions a second for each client)."""
    scenario = Scenario.objects.get(slug="pgecons-reference")
    scenario.pk, scenario.slug, scenario.name = None, "paced-reference", f"{scenario.name}, paced"
    scenario.script = paced(scenario.script)
    scenario.save()
    return scenario


def paced(script: str) -> str:
    """A pgbench script with a 20 ms pause after each transaction: pgbench runs, and leaves the cores to the rest."""
    return f"{script.rstrip()}\n\\sleep 20 ms\n"


def queue_reference_study_and_wait_for_pgbench(
    client,
    celery_processes,
    local_target,
    installed_build,
    *,
    duration: str,
    worker: str,
    concurrency: int = 1,
    clients: str = "1,2",
    **form_fields: str,
):
    """Queue a paced reference study (a trial per client level; form_fields: more of the form) through the form on a
    fresh worker; return (host, study, worker, pgbench pid)."""
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(
        host=host,
        builds=[build],
        baseline=build,
        scenarios=[paced_reference_scenario()],
        clients=clients,
        duration=duration,
        **form_fields,
    )
    started_worker = celery_processes.worker(worker, concurrency)
    client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    pid = wait_for(lambda: pgbench_pid(own_work_dir(host)), 90, "pgbench to run")
    return host, study, started_worker, pid


def store_outage_while_a_trial_runs(
    client, celery_processes, local_target, installed_build, *, duration: str, worker: str, outage_s: float
) -> tuple[Study, Trial]:
    """Queue a one-trial study on a worker of two processes (one runs the trial, the other beat's sweeps), cut the
    store off for outage_s once pgbench runs, and wait for the study to end; return it and its trial."""
    _, study, _, _ = queue_reference_study_and_wait_for_pgbench(
        client,
        celery_processes,
        local_target,
        installed_build,
        duration=duration,
        worker=worker,
        concurrency=2,
        clients="1",
    )
    trial = Trial.objects.get(study=study, status=Trial.Status.RUNNING)
    outage_started = time.monotonic()
    store_outage(outage_s)
    assert time.monotonic() - outage_started >= outage_s
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")
    study.refresh_from_db()
    trial.refresh_from_db()
    return study, trial


def rescue_and_wait_for_the_study(
    celery_processes, study: Study, interrupted: Trial, timeout: float, *, with_beat: bool = True
) -> list[Trial]:
    """Start beat (unless with_beat is False) and a worker named "rescuer", wait for the study to end, and check that
    nothing was lost or doubled: the study done, every trial succeeded once with its pgbench output, the interrupted
    one run again by the rescuer. Returns the study's trials in order."""
    if with_beat:
        celery_processes.beat()
    celery_processes.worker("rescuer")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), timeout, "the study to finish")

    study.refresh_from_db()
    interrupted.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps > 0 for trial in trials)
    assert interrupted.worker.startswith("rescuer@")
    assert [trial.attempts for trial in trials if trial.pk != interrupted.pk] == [1] * (len(trials) - 1)
    assert Artifact.objects.filter(trial__study=study, kind="pgbench_stdout").count() == len(trials)
    return trials


def attempt_history(study: Study) -> list[tuple[int, int, str, str, str]]:
    """Every attempt of the study's trials (position, number, worker, result, error): a trial's own error keeps its
    last attempt's only, and a failure message needs the earlier ones (CI once failed a trial at the attempt cap
    after a first attempt that ran pgbench to its end and was retried for a reason no longer shown)."""
    attempts = Attempt.objects.filter(trial__study=study).order_by("trial__position", "number")
    return list(attempts.values_list("trial__position", "number", "worker", "result", "error"))


def store_outage(seconds: float) -> None:
    """What a client sees of a restart of the store, made on the shared server without restarting it (others use
    it): every connection to the test database but this test's own is cut, and new ones are refused
    (ALLOW_CONNECTIONS false) for `seconds`, then let in again.

    From the server's maintenance database (a database cannot refuse connections while one is made to it):
    the test's own connection to the test database stays, every other one is cut and none is let in."""
    name = connection.settings_dict["NAME"]
    database = sql.Identifier(name)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (own,) = cursor.fetchone()
    with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
        maintenance.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(database))
        try:
            # Client connections only: an autovacuum worker on the database counts as a superuser's process, which
            # the app's role may not end (a fresh clone's run failed so), and no client waits on it.
            maintenance.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> %s AND backend_type = 'client backend'",
                [name, own],
            )
            time.sleep(seconds)
        finally:
            maintenance.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(database))


def leftover_cluster(work_dir: str, name: str, study_id: int, account: str = "") -> Path:
    """A cluster dir as an ended study's trial leaves it, owned by the target's account (the local target's unless
    named): 3 MiB of data and a marker naming the study."""
    cluster = Path(work_dir, "clusters", name)
    (cluster / "data").mkdir(parents=True)
    (cluster / "data" / "base").write_bytes(os.urandom(3 * MIB))
    (cluster / "data.json").write_text(json.dumps({"study_id": study_id}))
    owner = pwd.getpwnam(account) if account else run_user_account()
    for path in [cluster, *cluster.rglob("*")]:
        os.chown(path, owner.pw_uid, owner.pw_gid)
    return cluster
