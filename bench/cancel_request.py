"""A cancel's web request with 1,000 official points in the store: the study's end sending its tasks (now) against the
study's end doing their work in the request (the baseline: change points recomputed and the bisect moved on inline,
as the receivers of study_ended did before issue 40, point 3).

Usage:  .venv/bin/python bench/cancel_request.py [--rounds 15] [--trials 20]

A database of the bench's own (benchdash_bench_cancel, made fresh; Redis db 12, a real broker that takes the tasks and
that no worker reads), migrated, the presets and the host `local`; 1,008 official points imported as published
results (12 yearly studies of two versions, both presets' scenarios, 21 client levels: the trends' index and every
study's series). Each round queues a study of --trials pending trials on `local`, then times the POST to its cancel
page through Django's test Client (in-process, DEBUG off, a member with the permission), the two paths taking turns,
after one untimed cancel. Prints the median and the slowest request of each path in a Markdown table for
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from servers import drop_store, queue_store  # noqa: E402

BENCH_DB = "benchdash_bench_cancel"
REDIS_DB = 12
VERSIONS = ["9.2", "9.3", "9.4", "9.5", "9.6", "10.0", "11.0", "12.0", "13.0", "14.0", "15.0", "16.0", "17.0"]
CLIENTS = [1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 256]
SCENARIOS = ["pgecons-reference", "pgecons-update"]
HEADER = "study_year,study_title,source,hardware,os,scenario,pg_version,clients,tps,statistic,repetitions,notes\n"


def published_rows() -> str:
    """One official study a year, each of two consecutive versions: 12 x 2 x 2 x 21 = 1,008 points."""
    rows = []
    for year, (older, newer) in enumerate(zip(VERSIONS, VERSIONS[1:], strict=False), start=2013):
        for scenario in SCENARIOS:
            for clients in CLIENTS:
                for version, gain in ((older, 1.0), (newer, 1.04)):
                    tps = round(1000 * gain * min(clients, 64) ** 0.5, 1)
                    study = f"{year},定点観測 {year},bench,bench-host,RHEL 9"
                    rows.append(f"{study},{scenario},{version},{clients},{tps},median,3,")
    return HEADER + "\n".join(rows) + "\n"


def member_client() -> Any:
    from django.contrib.auth.models import Permission, User
    from django.test import Client

    member = User.objects.create_user("bench-member", password="bench-only-not-a-secret")
    member.user_permissions.add(Permission.objects.get(codename="cancel_study"))
    client = Client(HTTP_HOST="localhost")
    client.force_login(member)
    return client


def queued_study(trials: int) -> int:
    """A queued study of `trials` pending trials on the host `local`, as the form leaves one."""
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario, Study, Trial

    host = Host.objects.get(name="local")
    build = Build.objects.filter(bin_dir__startswith="/").first() or Build.objects.first()
    scenario = Scenario.objects.get(slug=SCENARIOS[0])
    study = Study.objects.create(title="cancelled", year=2026, status=Study.Status.QUEUED, db_host=host, baseline=build)
    study.builds.set([build])
    study.scenarios.set([scenario])
    Trial.objects.bulk_create(
        Trial(study=study, build=build, scenario=scenario, host=host, clients=1, repetition=number + 1, position=number)
        for number in range(trials)
    )
    return study.pk


def old_receivers(sender: Any, study_id: int, **_: Any) -> None:
    """What study_ended's receivers did in the ending process before: every change-point series recomputed, the bisect
    moved on."""
    from benchdash.changes.bisects import bisect_advance
    from benchdash.changes.refresh import changes_refresh

    changes_refresh(None)
    bisect_advance(study_id=study_id)


@contextmanager
def work_in_the_request() -> Iterator[None]:
    """The baseline: study_ended's work done by its receivers, in place of the tasks that do it now."""
    from benchdash.queue.changes import send_changes_refresh
    from benchdash.queue.study_end import send_advance_bisect
    from benchdash.studies.lifecycle.signals import study_ended

    study_ended.disconnect(dispatch_uid="benchdash.queue.send_changes_refresh")
    study_ended.disconnect(dispatch_uid="benchdash.queue.send_advance_bisect")
    study_ended.connect(old_receivers, dispatch_uid="bench.old_receivers")
    try:
        yield
    finally:
        study_ended.disconnect(dispatch_uid="bench.old_receivers")
        study_ended.connect(send_changes_refresh, dispatch_uid="benchdash.queue.send_changes_refresh")
        study_ended.connect(send_advance_bisect, dispatch_uid="benchdash.queue.send_advance_bisect")


def cancel_s(client: Any, study_id: int) -> float:
    from benchdash.studies.models import Study

    started = time.perf_counter()
    response = client.post(f"/studies/{study_id}/cancel/")
    elapsed = time.perf_counter() - started
    if response.status_code != 302 or Study.objects.get(pk=study_id).status != Study.Status.CANCELLED:
        sys.exit(f"the cancel of study {study_id} answered {response.status_code}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    os.environ.update(DEBUG="false", SECRET_KEY="bench-only-not-a-secret", LOG_LEVEL="WARNING")
    broker = queue_store(BENCH_DB, REDIS_DB)
    import redis
    from django.core.management import call_command

    from benchdash.studies.models import StudyPoint

    try:
        csv_file = ROOT / "var" / "bench-cancel-published.csv"
        csv_file.write_text(published_rows(), encoding="utf-8")
        call_command("import_results", str(csv_file), stdout=io.StringIO())
        csv_file.unlink()
        points = StudyPoint.objects.filter(study__official=True).count()
        client = member_client()
        paths: dict[str, Callable[[], Any]] = {
            "tasks sent after commit (now)": nullcontext,
            "work in the request (before)": work_in_the_request,
        }
        cancel_s(client, queued_study(args.trials))  # untimed: the first request opens connections, imports views
        measured: dict[str, list[float]] = {name: [] for name in paths}
        for _ in range(args.rounds):
            for name, path in paths.items():
                study_id = queued_study(args.trials)
                with path():
                    measured[name].append(cancel_s(client, study_id))
        redis.Redis.from_url(broker).flushdb()
    finally:
        drop_store(BENCH_DB)
    print(f"load average {os.getloadavg()[0]:.1f}; {points} official points; {args.rounds} cancels each\n")
    print("| a cancel's request | median ms | slowest ms |")
    print("| --- | ---: | ---: |")
    for name, seconds in measured.items():
        print(f"| {name} | {statistics.median(seconds) * 1000:.1f} | {max(seconds) * 1000:.1f} |")


if __name__ == "__main__":
    main()
