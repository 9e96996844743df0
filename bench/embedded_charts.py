"""Time to draw an embedded chart (issue 43, point 3): the 2021 study's reference chart and the trends' index of the
same scenario as PNG and SVG, the iframe page, and a refetch with the ETag (a 304), beside the study page.

Usage:  .venv/bin/python bench/embedded_charts.py [--requests 10]

Creates (drops first) the database `benchdash_bench_embed`, migrates it and loads the seeds' history
(`load_presets`), then requests every URL through Django's test Client: the first request of each in this process
(cold: the Japanese font read) and the median and p95 of `--requests` more. Prints a Markdown table for
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pages_and_csv import _client, _p95  # noqa: E402
from report_files import history_store  # noqa: E402


def main(requests: int) -> None:
    history_store("benchdash_bench_embed")
    print("| what | status | first request (s) | median (s) | p95 (s) | size (KiB) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, url, headers in _requests():
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
