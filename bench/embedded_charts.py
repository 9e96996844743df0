"""Time to draw an embedded chart (issue 43, point 3): the 2021 study's reference chart and the trends' index of the
same scenario as PNG and SVG, the iframe page, and a refetch with the ETag (a 304), beside the study page; then every
other chart of the embed registry as PNG: the trends' study curves, a comparison, and a measured study's evidence
(CPU, CPU per transaction, wait events, perf's differential and flame graph), trial (timeline, flame graph) and
minors charts, beside that study's page.

Usage:  .venv/bin/python bench/embedded_charts.py [--requests 10]

Creates (drops first) the database `benchdash_bench_embed`, migrates it and loads the seeds' history
(`load_presets`), adds bench/evidence_page.py's measured study (2 builds x 2 scenarios x 10 client levels x 5
repetitions, every collector on, 30-second trials), then requests every URL through Django's test Client: the first
request of each in this process (cold: the Japanese font read) and the median and p95 of `--requests` more. Prints a
Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pages_and_csv import _client, _p95  # noqa: E402
from report_files import history_store  # noqa: E402

EVIDENCE_SECONDS, EVIDENCE_STACKS = 30, 2000


def main(requests: int) -> None:
    history_store("benchdash_bench_embed")
    measured = _measured_study()
    print("| what | status | first request (s) | median (s) | p95 (s) | size (KiB) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, url, headers in _requests() + _registry_requests(measured):
        status, first, durations, size = _timed(url, headers, requests)
        median = sorted(durations)[len(durations) // 2]
        print(f"| {name} | {status} | {first:.3f} | {median:.3f} | {_p95(durations):.3f} | {size / 1024:.0f} |")


def _requests() -> list[tuple[str, str, dict[str, str]]]:
    from django.urls import reverse

    from benchdash.studies.models import Study

    study = Study.objects.get(year=2021)
    slug = study.scenarios.order_by("slug").first().slug
    png = reverse("embeds:study_png", args=[study.pk, slug]) + "?lang=ja"
    etag = _client().get(png)["ETag"]
    return [
        ("baseline: the 2021 study page", reverse("studies:detail", args=[study.pk]), {}),
        ("2021 study chart, PNG (1600 px wide)", png, {}),
        ("2021 study chart, PNG, refetch with its ETag", png, {"HTTP_IF_NONE_MATCH": etag}),
        ("2021 study chart, SVG", reverse("embeds:study_svg", args=[study.pk, slug]) + "?lang=ja", {}),
        ("2021 study chart, iframe page", reverse("embeds:study_frame", args=[study.pk, slug]) + "?lang=ja", {}),
        (f"trends index of {slug}, PNG", reverse("embeds:trend_png", args=[slug]) + "?lang=ja", {}),
    ]


def _measured_study():  # noqa: ANN202 (a Study, imported once Django is set up)
    import random

    from evidence_page import _fill, _folded_stacks, _study

    rng = random.Random(8)
    study = _study("with evidence")
    _fill(study, rng, EVIDENCE_SECONDS, _folded_stacks(rng, EVIDENCE_STACKS), evidence=True)
    study.year = 2025  # the history's 2021 study stays the one study of 2021
    study.save(update_fields=["year"])
    return study


def _registry_requests(measured) -> list[tuple[str, str, dict[str, str]]]:  # noqa: ANN001
    """A PNG of each chart of the registry that the history and the measured study have, beside the measured study's
    page."""
    from django.urls import reverse

    from benchdash.studies.models import Study

    older = Study.objects.filter(kind=Study.Kind.PUBLISHED).exclude(year=2021).order_by("-year").first()
    newer = Study.objects.get(year=2021)
    slug = newer.scenarios.order_by("slug").first().slug
    first = measured.trials.filter(repetition=1, evidence__perf_flame__isnull=False).order_by("clients").first()
    perf = f"?lang=ja&perf_clients={first.clients}"
    scenario_id, other = first.scenario_id, measured.builds.get(version="14.0").pk

    def png(name: str, *args: object, query: str = "?lang=ja") -> str:
        return reverse(f"embeds:{name}_png", args=args) + query

    def evidence(figure: str, query: str = "?lang=ja") -> str:
        return png("study_evidence", measured.pk, f"{figure}", query=query)

    compare = f"?lang=ja&a=study:{older.pk}&b=study:{newer.pk}"
    page = reverse("studies:detail", args=[measured.pk])
    return [
        (f"trends: the 2021 study's curves of {slug}, PNG", png("trend_study", slug, newer.pk), {}),
        ("a comparison of two published studies, PNG", png("compare", query=compare), {}),
        ("baseline: the measured study's page (200 trials, evidence)", page, {}),
        ("its TPS chart of reference, PNG", png("study", measured.pk, "reference"), {}),
        ("its CPU breakdown, PNG (stacked bars)", evidence(f"evidence-{scenario_id}-cpu"), {}),
        ("its CPU per transaction, PNG", evidence(f"evidence-{scenario_id}-cpu-tx"), {}),
        ("its wait events, PNG (stacked bars)", evidence(f"evidence-{scenario_id}-waits"), {}),
        ("its perf differential, PNG", evidence(f"perf-diff-{scenario_id}-{other}", perf), {}),
        ("its perf flame graph, PNG (icicle)", evidence(f"flame-{scenario_id}-{other}", perf), {}),
        ("baseline: a trial's page", reverse("studies:trial", args=[first.pk]), {}),
        ("the trial's timeline, PNG (4 panels)", png("trial", first.pk, "timeline"), {}),
        ("the trial's flame graph, PNG", png("trial", first.pk, "flame"), {}),
        ("the study's TPS per minor of reference, PNG", png("minors", measured.pk, "reference"), {}),
    ]


def _timed(url: str, headers: dict[str, str], requests: int) -> tuple[int, float, list[float], int]:
    client = _client()
    started = time.perf_counter()
    response = client.get(url, **headers)
    first = time.perf_counter() - started
    durations = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url, **headers)
        durations.append(time.perf_counter() - started)
    assert response.status_code in (200, 304), (url, response.status_code)
    return response.status_code, first, durations, len(response.content)


if __name__ == "__main__":
    main(int(sys.argv[sys.argv.index("--requests") + 1]) if "--requests" in sys.argv else 10)
