"""Server time of every read API endpoint (/api/v1/), empty store vs 1,000,000 trials, read with a member's token.

Usage:  .venv/bin/python bench/api_read.py [--trials 1000000] [--studies 40] [--requests 50] [--evidence 200]

Creates (drops first) the database `benchdash_bench_api` on the store cluster, migrates it and fills it as
bench/pages_and_csv.py does (the same builds, scenarios, 40 studies; trials by COPY, then VACUUM ANALYZE and every
study's points), measures each endpoint on the almost empty store (one study, no trials) and again on the full one,
and prints a Markdown table for docs/BENCHMARKS.md; the study page, timed in the same run, is the baseline (its
p95 goal is 300 ms, bench/pages_and_csv.py). The first `--evidence` trials of the measured study get an
evidence summary (a study with every collector on has a few hundred). Requests go through Django's test Client
in-process with DEBUG off and `Authorization: Bearer` (the token is looked up on every request): server time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pages_and_csv  # noqa: E402
from pages_and_csv import Timing, _django_setup, _fill_inventory, _fill_trials, _measure  # noqa: E402

BENCH_DB = "benchdash_bench_api"
GOAL_P95_MS = 100.0


def main() -> None:
    args = _arguments()
    _django_setup(args.database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    _read_with_a_token()
    study_ids = _fill_inventory(args.studies)
    empty = _measure_all(study_ids[0], args.requests)
    started = time.perf_counter()
    _fill_trials(study_ids, args.trials)
    _fill_points(study_ids)
    _fill_evidence(study_ids[0], args.evidence)
    fill_s = time.perf_counter() - started
    full = _measure_all(study_ids[0], args.requests)
    _print_report(args, empty, full, fill_s)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--studies", type=int, default=40)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--evidence", type=int, default=200)
    parser.add_argument("--database", default=BENCH_DB)
    return parser.parse_args()


def _read_with_a_token() -> None:
    """Every request of the bench carries a member's token, as a script's would."""
    from django.contrib.auth.models import User
    from django.test import Client

    from benchdash.api.tokens import issue_token

    _row, token = issue_token(User.objects.create_user("bench-script"), "bench")
    pages_and_csv._client = partial(Client, HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Bearer {token}")


def _fill_points(study_ids: list[int]) -> None:
    """What `manage.py refresh_points` does after a bulk load; every study official, so that the trends chain them."""
    from benchdash.studies.models import Study
    from benchdash.studies.results.store import points_refresh

    for study_id in study_ids:
        points_refresh(study_id=study_id)
    Study.objects.filter(id__in=study_ids).update(official=True)


def _fill_evidence(study_id: int, count: int) -> None:
    """An evidence summary for the study's first `count` trials: the figures a 60-second trial's collectors give."""
    from benchdash.studies.models import Trial, TrialEvidence

    collected = {name: {"state": "ok", "reason": ""} for name in ("progress", "sar", "wait_events", "perf")}
    waits = [
        {"wait_event_type": "LWLock", "wait_event": "WALWrite", "count": 40},
        {"wait_event_type": "CPU", "wait_event": "", "count": 80},
    ]
    trials = Trial.objects.filter(study_id=study_id, status=Trial.Status.SUCCEEDED).order_by("position")[:count]
    TrialEvidence.objects.bulk_create(
        TrialEvidence(
            trial=trial,
            collectors=collected,
            progress_seconds=60,
            tps_cv=0.02,
            cpus=8,
            cpu_user=60.0,
            cpu_system=20.0,
            cpu_iowait=1.0,
            cpu_steal=0.0,
            cpu_idle=19.0,
            cpu_ms_per_transaction=0.4,
            disk_device="sda",
            disk_util_percent=30.0,
            disk_await_ms=0.8,
            wait_samples=60,
            wait_events=waits,
        )
        for trial in trials
    )


def _measure_all(study_id: int, requests: int) -> list[Timing]:
    from benchdash.studies.models import Trial

    trial = Trial.objects.filter(study_id=study_id).order_by("position").first()
    trial_id = trial.pk if trial else 0
    deep = max(0, Trial.objects.filter(study_id=study_id).count() - 100)
    urls = [
        ("baseline: the study page (HTML)", f"/studies/{study_id}/"),
        ("/hosts", "/api/v1/hosts"),
        ("/builds", "/api/v1/builds"),
        ("/builds?version=9.4", "/api/v1/builds?version=9.4"),
        ("/scenarios", "/api/v1/scenarios"),
        ("/scenarios/{slug}", "/api/v1/scenarios/update"),
        ("/studies", "/api/v1/studies"),
        ("/studies/{id}", f"/api/v1/studies/{study_id}"),
        ("/studies/{id}/trials (first 100)", f"/api/v1/studies/{study_id}/trials"),
        ("/studies/{id}/trials (last 100)", f"/api/v1/studies/{study_id}/trials?offset={deep}"),
        ("/studies/{id}/trials?limit=500", f"/api/v1/studies/{study_id}/trials?limit=500"),
        ("/studies/{id}/points", f"/api/v1/studies/{study_id}/points"),
        ("/studies/{id}/evidence", f"/api/v1/studies/{study_id}/evidence"),
        ("/trends", "/api/v1/trends"),
        ("/trends/{slug}", "/api/v1/trends/update"),
        ("/trends/{slug}/links", "/api/v1/trends/update/links"),
    ]
    if trial_id:
        urls.append(("/trials/{id}", f"/api/v1/trials/{trial_id}"))
    timings = [_measure(name, url, requests) for name, url in urls]
    if trial_id and _has_evidence(trial_id):
        timings.append(_measure("/trials/{id}/evidence", f"/api/v1/trials/{trial_id}/evidence", requests))
    return timings


def _has_evidence(trial_id: int) -> bool:
    from benchdash.studies.models import TrialEvidence

    return TrialEvidence.objects.filter(trial_id=trial_id).exists()


def _print_report(args: argparse.Namespace, empty: list[Timing], full: list[Timing], fill_s: float) -> None:
    before = {timing.name: timing for timing in empty}
    print(f"\nfilled {args.trials:,} trials across {args.studies} studies (and their points) in {fill_s:.1f} s")
    print(f"load average (1, 5, 15 min): {' '.join(f'{value:.2f}' for value in os.getloadavg())}\n")
    print("| endpoint | empty p50 ms | empty p95 ms | 1M p50 ms | 1M p95 ms | size | goal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for after in full:
        was = before.get(after.name)
        was_cells = f"{was.p50_ms:.1f} | {was.p95_ms:.1f}" if was else "— | —"
        met = "met" if after.p95_ms < GOAL_P95_MS else "NOT met"
        print(
            f"| `{after.name}` | {was_cells} | {after.p50_ms:.1f} | {after.p95_ms:.1f} "
            f"| {after.size_bytes / 1024:,.1f} KiB | p95 < {GOAL_P95_MS:.0f} ms: {met} |"
        )


if __name__ == "__main__":
    main()
