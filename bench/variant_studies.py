"""A variant study against a study of builds of the same size (issue 21, point 9): the time to plan and queue one
(4 variants x 4 client levels x 3 repetitions, 48 trials), and its page's server time with 1,000 trials.

Usage:  .venv/bin/python bench/variant_studies.py [--rounds 20] [--requests 20] [--trials 1000]

Creates (drops first) the database `benchdash_bench_variants` on the store cluster (servers.queue_store: migrated,
the presets and the host `local`) and uses Redis db 12. Each round
validates the new-study form (every check, the preview's variant checks included), saves the study with its
variants and planned trials (study_create) and queues it (study_enqueue: the first trial's task goes to Redis);
the two kinds of study alternate, so that both see the same load. The first study of each kind (cold) is timed
apart. Then one study of each kind gets `--trials`
succeeded trials and its points, and the two pages are fetched in turn through Django's test Client (server time,
no network). Prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from servers import queue_store

BENCH_DB = "benchdash_bench_variants"
REDIS_DB = 12
CLIENT_LEVELS = "1,16,32,64"
VARIANT_AXES = "checksums=off,on\ncpus=1,2"  # x 1 build = 4 variants
BUILD_COUNT = 4  # the study of builds: 4 builds, one variant each


def main() -> None:
    args = _arguments()
    _django_setup()
    rows = _inventory()
    designs = {
        "variants (1 build x checksums x cpus)": _variant_design(rows),
        "builds only (4 builds)": _build_design(rows),
    }
    queue_ms: dict[str, list[float]] = {name: [] for name in designs}
    studies: dict[str, int] = {}
    cold_ms = {name: _timed_ms(lambda design=design: _plan_and_queue(design))[0] for name, design in designs.items()}
    for _round in range(args.rounds):
        for name, design in designs.items():
            duration, study_id = _timed_ms(lambda design=design: _plan_and_queue(design))
            queue_ms[name].append(duration)
            studies[name] = study_id
    urls = {name: _with_trials(studies[name], args.trials) for name in designs}
    page_ms: dict[str, list[float]] = {name: [] for name in designs}
    for _request in range(args.requests):  # alternating, so that both see the same load
        for name, url in urls.items():
            page_ms[name].append(_fetch_ms(url))
    _print_report(args, queue_ms, page_ms)
    print("\nfirst study of each kind (cold: settings catalogs, query plans), ms: " + str(cold_ms))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--trials", type=int, default=1000)
    return parser.parse_args()


def _django_setup() -> None:
    """A migrated store with the presets and the host `local` (servers.queue_store), DEBUG off as in production."""
    os.environ.update(DEBUG="false", BENCHDASH_PUBLIC_READ="true", LOG_LEVEL="WARNING")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    queue_store(BENCH_DB, REDIS_DB)


def _inventory() -> dict[str, object]:
    """The DB host `local` with 16 CPUs, four 15.x builds and the select-only scenario."""
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario

    Host.objects.filter(name="local").update(facts={"cpu_threads": 16, "architecture": "x86_64"})
    host = Host.objects.get(name="local")
    builds = [
        Build.objects.create(name=f"pg15.{minor}", version=f"15.{minor}", bin_dir="/usr/lib/postgresql/15/bin")
        for minor in range(17, 17 + BUILD_COUNT)
    ]
    scenario = Scenario.objects.get(slug="pgbench-select-only")
    return {"host": host, "builds": builds, "scenario": scenario}


def _common(rows: dict, title: str) -> dict[str, object]:
    return {
        "title": title,
        "year": "2026",
        "db_host": str(rows["host"].pk),
        "scenarios": [str(rows["scenario"].pk)],
        "client_levels": CLIENT_LEVELS,
        "repetitions": "3",
        "duration_s": "60",
        "scale": "10",
        "pg_settings": "shared_buffers = 128MB",
        "collect_sar": "on",
        "seed": "9",
    }


def _variant_design(rows: dict) -> object:
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    data.update({**_common(rows, "variants"), "baseline": str(rows["builds"][0].pk), "vary": VARIANT_AXES})
    data.setlist("builds", [str(rows["builds"][0].pk)])
    data.setlist("scenarios", [str(rows["scenario"].pk)])
    return data


def _build_design(rows: dict) -> object:
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    data.update({**_common(rows, "builds"), "baseline": str(rows["builds"][0].pk)})
    data.setlist("builds", [str(build.pk) for build in rows["builds"]])
    data.setlist("scenarios", [str(rows["scenario"].pk)])
    return data


def _plan_and_queue(data: object) -> int:
    """What the new-study page does on "Queue the study": the form's checks, study_create, study_enqueue."""
    from benchdash.studies.forms import StudyForm
    from benchdash.studies.lifecycle import services

    form = StudyForm(data)
    if not form.is_valid():
        raise SystemExit(f"the form refused the design: {form.errors.as_text()}")
    study = services.study_create(data=form.cleaned_data)
    services.study_enqueue(study=study)
    if study.trials.count() != 48:
        raise SystemExit(f"study {study.pk} has {study.trials.count()} trials, not 4 x 4 x 3")
    return study.pk


def _with_trials(study_id: int, trial_count: int) -> str:
    """The study made done with trial_count succeeded trials spread over its variants and levels; its page's URL."""
    from django.urls import reverse

    from benchdash.studies.models import Study
    from benchdash.studies.results.store import points_refresh

    _fill_trials(study_id, trial_count)
    Study.objects.filter(pk=study_id).update(status=Study.Status.DONE)
    points_refresh(study_id=study_id)
    url = reverse("studies:detail", args=[study_id])
    _fetch_ms(url)  # warm: templates, query plans
    return url


def _fill_trials(study_id: int, trial_count: int) -> None:
    """Its 48 planned trials become succeeded, and more rounds of them are added up to trial_count."""
    from django.utils import timezone

    from benchdash.studies.models import Trial

    planned = list(Trial.objects.filter(study_id=study_id).order_by("position"))
    rng, now = random.Random(study_id), timezone.now()
    extra = [
        Trial(
            study_id=study_id,
            build_id=trial.build_id,
            variant_id=trial.variant_id,
            scenario_id=trial.scenario_id,
            host_id=trial.host_id,
            clients=trial.clients,
            threads=trial.threads,
            repetition=trial.repetition + 3 * (number // len(planned)),
            position=number,
        )
        for number in range(len(planned), trial_count)
        for trial in [planned[number % len(planned)]]
    ]
    Trial.objects.bulk_create(extra, batch_size=1000)
    _store_figures(study_id, rng, now)


def _store_figures(study_id: int, rng: random.Random, now: object) -> None:
    from benchdash.studies.models import Trial

    trials = list(Trial.objects.filter(study_id=study_id))
    for trial in trials:
        trial.status = Trial.Status.SUCCEEDED
        trial.tps = round(1000 * (1 + trial.clients**0.5) * rng.uniform(0.95, 1.05), 3)
        trial.started_at = trial.finished_at = now
    Trial.objects.bulk_update(trials, ["status", "tps", "started_at", "finished_at"], batch_size=1000)


def _fetch_ms(url: str) -> float:
    from django.test import Client

    duration, response = _timed_ms(lambda: Client(HTTP_HOST="localhost").get(url))
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code}")
    return duration


def _timed_ms(call: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def _p95(durations: list[float]) -> float:
    return statistics.quantiles(durations, n=20, method="inclusive")[18]


def _print_report(args: argparse.Namespace, queue_ms: dict[str, list[float]], page_ms: dict[str, list[float]]) -> None:
    load = " / ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"rounds {args.rounds}, requests {args.requests}, trials {args.trials}; load average {load}\n")
    print(
        "| study (48 planned trials) | plan + queue p50 ms | p95 ms | goal | page with trials p50 ms | p95 ms | goal |"
    )
    print("| --- | ---: | ---: | --- | ---: | ---: | --- |")
    for name in queue_ms:
        queued, page = queue_ms[name], page_ms[name]
        queue_goal = "met" if _p95(queued) < 1000 else "NOT met"
        page_goal = "met" if _p95(page) < 300 else "NOT met"
        print(
            f"| {name} | {statistics.median(queued):.1f} | {_p95(queued):.1f} | < 1 s: {queue_goal} "
            f"| {statistics.median(page):.1f} | {_p95(page):.1f} | < 300 ms: {page_goal} |"
        )


if __name__ == "__main__":
    main()
