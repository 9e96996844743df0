"""Server time of a study page with evidence: a 200-trial study with every collector on, against the same study
without evidence, and what summarising one trial adds to trial_finish.

Usage:  .venv/bin/python bench/evidence_page.py [--requests 30] [--seconds 60] [--stacks 5000]

Creates (drops first) the database `benchdash_bench_evidence` on the store cluster and two identical studies
(2 builds x 2 scenarios x 10 client levels x 5 repetitions = 200 succeeded trials each). Every trial of the
first gets artifacts the size a 60-second trial leaves (per-second progress, sar of 2 disks, 60 wait-event
samples) and, at its first repetition, folded perf stacks of a 30-second profile (`--stacks` distinct stacks,
about 200,000 samples); they are stored as Artifact files and summarised by evidence_refresh, timed, as
trial_finish does it. Then the study page (with and without evidence), the trial page, the report and the
evidence downloads are requested through Django's test Client, and a Markdown table is printed for
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pages_and_csv import Timing, _django_setup, _measure, _p95  # noqa: E402

BENCH_DB = "benchdash_bench_evidence"
CLIENT_LEVELS = [1, 16, 32, 64, 96, 128, 160, 192, 288, 432]
REPETITIONS = 5
DISK_COLUMNS = ("util_percent", "await_ms", "read_kb_s", "write_kb_s")
WAIT_EVENTS = [
    ("CPU", "CPU"),
    ("LWLock", "WALInsert"),
    ("LWLock", "BufferMapping"),
    ("LWLock", "WALWrite"),
    ("Lock", "transactionid"),
    ("Lock", "tuple"),
    ("IO", "WALSync"),
    ("IO", "DataFileRead"),
    ("IPC", "ProcArrayGroupUpdate"),
    ("Client", "ClientRead"),
    ("Timeout", "VacuumDelay"),
    ("BufferPin", "BufferPin"),
]


def main() -> None:
    args = _arguments()
    _django_setup(args.database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    rng = random.Random(8)
    with_evidence, without = _study("with evidence"), _study("without evidence")
    perf_text = _folded_stacks(rng, args.stacks)
    summarise_ms = _fill(with_evidence, rng, args.seconds, perf_text, evidence=True)
    _fill(without, rng, args.seconds, perf_text, evidence=False)
    refresh_s = _refresh_from_storage(with_evidence)
    timings = _measure_pages(with_evidence, without, args.requests)
    _print_report(args, summarise_ms, refresh_s, timings, len(perf_text))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--seconds", type=int, default=60, help="the trials' duration (per-second samples)")
    parser.add_argument("--stacks", type=int, default=5000, help="distinct folded perf stacks per profile")
    parser.add_argument("--database", default=BENCH_DB)
    return parser.parse_args()


def _study(title: str):
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario, Study

    host, _ = Host.objects.get_or_create(
        name="bench-db", defaults={"address": "192.0.2.10", "facts": {"cpu_model": "EPYC"}}
    )
    old, _ = Build.objects.get_or_create(name="PostgreSQL 13.4", defaults={"version": "13.4"})
    new, _ = Build.objects.get_or_create(name="PostgreSQL 14.0", defaults={"version": "14.0"})
    scenarios = [
        Scenario.objects.get_or_create(slug=slug, defaults={"name": name, "builtin": "select-only"})[0]
        for slug, name in (("reference", "参照系"), ("update", "更新系"))
    ]
    study = Study.objects.create(
        title=f"13.4 vs 14.0, {title}",
        year=2021,
        status=Study.Status.DONE,
        db_host=host,
        client_host=host,
        baseline=old,
        client_levels=CLIENT_LEVELS,
        repetitions=REPETITIONS,
        duration_s=60,
        collect_sar=True,
        collect_wait_events=True,
        collect_perf=True,
    )
    study.builds.set([old, new])
    study.scenarios.set(scenarios)
    return study


def _fill(study, rng: random.Random, seconds: int, perf_text: bytes, *, evidence: bool) -> list[float]:
    """200 succeeded trials with their points; with evidence, their artifacts stored and summarised (timed)."""
    from django.core.files.base import ContentFile

    from benchdash.studies.evidence.store import evidence_refresh
    from benchdash.studies.models import Artifact, Trial
    from benchdash.studies.results.store import points_refresh

    summarise_ms = []
    position = 0
    for repetition in range(1, REPETITIONS + 1):
        for build in study.builds.order_by("version"):
            for scenario in study.scenarios.all():
                for clients in CLIENT_LEVELS:
                    tps = 400.0 * clients**0.6 * (0.97 if build.version == "14.0" else 1.0) * rng.uniform(0.97, 1.03)
                    trial = Trial.objects.create(
                        study=study, build=build, scenario=scenario, host=study.db_host, clients=clients,
                        threads=max(1, clients // 2), repetition=repetition, position=position,
                        status=Trial.Status.SUCCEEDED, tps=tps, transactions=int(tps * seconds),
                    )  # fmt: skip
                    position += 1
                    if not evidence:
                        continue
                    artifacts = _artifacts(rng, seconds, tps, clients, perf_text if repetition == 1 else None)
                    for kind, data in artifacts.items():
                        name = f"trial-{trial.pk}-{kind}.{'txt' if kind == 'perf_folded' else 'json'}"
                        Artifact.objects.create(
                            trial=trial, kind=kind, file=ContentFile(data, name=name), size=len(data)
                        )
                    started = time.perf_counter()
                    evidence_refresh(trial=trial, artifacts=artifacts)
                    summarise_ms.append((time.perf_counter() - started) * 1000)
    points_refresh(study_id=study.pk)
    return summarise_ms


def _artifacts(rng: random.Random, seconds: int, tps: float, clients: int, perf_text: bytes | None) -> dict[str, bytes]:
    start = datetime(2021, 10, 1, 12, 0, tzinfo=UTC)
    times = [(start + timedelta(seconds=second + 1)).strftime("%Y-%m-%dT%H:%M:%SZ") for second in range(seconds + 2)]
    progress = [
        {
            "t": float(second + 1),
            "tps": round(tps * rng.uniform(0.9, 1.1), 1),
            "latency_ms": 1.2,
            "stddev_ms": 0.3,
            "failed": 0,
        }
        for second in range(seconds)
    ]
    user = [rng.uniform(40, 70) for _ in times]
    sar = {
        "host": "bench-db",
        "cpus": 32,
        "interval_s": 1,
        "time": times,
        "cpu": {
            "user": user,
            "system": [rng.uniform(10, 20) for _ in times],
            "iowait": [rng.uniform(0, 5) for _ in times],
            "steal": [rng.uniform(0, 1) for _ in times],
            "idle": [max(0.0, 100 - value - 25) for value in user],
        },
        "memory": {name: [30.0] * len(times) for name in ("used_percent", "used_kb", "free_kb", "cached_kb")},
        "disks": {
            device: {name: [rng.uniform(0, 60) for _ in times] for name in DISK_COLUMNS}
            for device in ("nvme0n1", "nvme1n1")
        },
    }  # fmt: skip
    series = []
    for second in range(seconds):
        moment = (start + timedelta(seconds=second, milliseconds=700)).isoformat()
        counts = {f"{kind}:{event}": rng.randint(0, max(1, clients // 4)) for kind, event in rng.sample(WAIT_EVENTS, 6)}
        series.append({"t": moment, "counts": counts})
    totals: dict[tuple[str, str], int] = {}
    for sample in series:
        for key, count in sample["counts"].items():
            kind, _, event = key.partition(":")
            totals[(kind, event)] = totals.get((kind, event), 0) + count
    waits = {
        "interval_s": 1,
        "samples": len(series),
        "counts": [
            {"wait_event_type": k, "wait_event": e, "count": n}
            for (k, e), n in sorted(totals.items(), key=lambda i: -i[1])
        ],
        "series": series,
    }
    artifacts = {
        "progress": json.dumps(progress).encode(),
        "sar_series": json.dumps(sar).encode(),
        "wait_events": json.dumps(waits).encode(),
    }
    if perf_text is not None:
        artifacts["perf_folded"] = perf_text
    return artifacts


def _folded_stacks(rng: random.Random, count: int) -> bytes:
    """`count` distinct stacks of a PostgreSQL-like call tree, 5 to 30 frames deep, Zipf-like sample counts."""
    base = ["postgres", "main", "PostmasterMain", "ServerLoop", "PostgresMain", "exec_simple_query", "PortalRun"]
    functions = [f"fn_{number}" for number in range(400)] + ["index_fetch_heap", "ReadBufferExtended", "LWLockAcquire"]
    stacks: dict[str, int] = {}
    while len(stacks) < count:
        depth = rng.randint(0, 23)
        frames = base + [
            functions[min(int(rng.paretovariate(1.2)) * 7 + level, len(functions) - 1)] for level in range(depth)
        ]
        stacks[";".join(frames)] = stacks.get(";".join(frames), 0) + max(1, int(400 / (len(stacks) + 1) ** 0.5))
    return "".join(f"{stack} {samples}\n" for stack, samples in sorted(stacks.items())).encode()


def _refresh_from_storage(study) -> float:
    """`manage.py refresh_evidence --study ID`: every trial summarised again from its stored files (s)."""
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("refresh_evidence", "--study", str(study.pk), stdout=open("/dev/null", "w"))  # noqa: SIM115
    return time.perf_counter() - started


def _measure_pages(with_evidence, without, requests: int) -> list[Timing]:
    from django.urls import reverse

    trial = with_evidence.trials.get(repetition=1, clients=432, build__version="14.0", scenario__slug="reference")
    urls = [
        ("study page without evidence (baseline)", reverse("studies:detail", args=[without.pk])),
        ("study page with evidence", reverse("studies:detail", args=[with_evidence.pk])),
        (
            "study page with evidence, perf at 1 client",
            reverse("studies:detail", args=[with_evidence.pk]) + "?perf_clients=1",
        ),
        ("trial page (60 s, perf)", reverse("studies:trial", args=[trial.pk])),
        ("report page", reverse("studies:report", args=[with_evidence.pk])),
        ("evidence.csv", reverse("studies:evidence_csv", args=[with_evidence.pk])),
        ("evidence.json", reverse("studies:evidence_json", args=[with_evidence.pk])),
    ]
    return [_measure(name, url, requests) for name, url in urls]


def _print_report(args, summarise_ms: list[float], refresh_s: float, timings: list[Timing], perf_bytes: int) -> None:
    import os

    print(f"\nperf profile: {args.stacks:,} distinct stacks, {perf_bytes / 1024:,.0f} KiB folded")
    print(
        f"evidence_refresh per trial (in trial_finish): p50 {statistics.median(summarise_ms):.1f} ms, "
        f"p95 {_p95(summarise_ms):.1f} ms, max {max(summarise_ms):.1f} ms over {len(summarise_ms)} trials"
    )
    print(f"refresh_evidence from storage, whole study (200 trials): {refresh_s:.1f} s")
    print(f"load average (1, 5, 15 min): {' '.join(f'{value:.2f}' for value in os.getloadavg())}\n")
    print("| request | p50 ms | p95 ms | size |")
    print("| --- | ---: | ---: | ---: |")
    for timing in timings:
        print(f"| {timing.name} | {timing.p50_ms:.1f} | {timing.p95_ms:.1f} | {timing.size_bytes / 1024:,.0f} KiB |")


if __name__ == "__main__":
    main()
