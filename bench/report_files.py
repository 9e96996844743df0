"""Time to render the yearly report's files (issue 23, point 1): the 2021 study's PDF, 16:9 deck and CSV bundle in
Japanese and English, and the 2014 year's PDF, side by side with the study page and the report page as baselines.

Usage:  .venv/bin/python bench/report_files.py [--requests 10]

Creates (drops first) the database `benchdash_bench_report`, migrates it and loads the seeds' history
(`load_presets`), then requests every URL through Django's test Client: the first request of each in this process
(cold: ReportLab's font, python-pptx's templates) and the median and p95 of `--requests` more. Prints a Markdown
table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pages_and_csv import _client, _django_setup, _p95  # noqa: E402

BENCH_DB = "benchdash_bench_report"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=10)
    args = parser.parse_args()
    history_store(BENCH_DB)
    print("| what | first request (s) | median (s) | p95 (s) | size (KiB) |")
    print("| --- | --- | --- | --- | --- |")
    for name, url in _urls():
        first, durations, size = _timed(url, args.requests)
        median = sorted(durations)[len(durations) // 2]
        print(f"| {name} | {first:.2f} | {median:.2f} | {_p95(durations):.2f} | {size / 1024:.0f} |")


def history_store(database: str) -> None:
    """A fresh store (dropped first, migrated) with the seeds' history loaded."""
    _django_setup(database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_presets", stdout=io.StringIO())


def _urls() -> list[tuple[str, str]]:
    from django.urls import reverse

    from benchdash.studies.models import Study

    study = Study.objects.get(year=2021)

    def file(language: str, extension: str) -> str:
        return reverse("reports:study_file", kwargs={"pk": study.pk, "language": language, "extension": extension})

    year_pdf = reverse("reports:year_file", kwargs={"year": 2014, "language": "ja", "extension": "pdf"})
    return [
        ("baseline: the 2021 study page", reverse("studies:detail", args=[study.pk])),
        ("baseline: the 2021 report page", reverse("studies:report", args=[study.pk])),
        ("2021 report PDF, Japanese", file("ja", "pdf")),
        ("2021 report PDF, English", file("en", "pdf")),
        ("2021 slides PPTX, Japanese", file("ja", "pptx")),
        ("2021 CSV bundle (zip)", file("ja", "zip")),
        ("2014 year report PDF (2 studies)", year_pdf),
    ]


def _timed(url: str, requests: int) -> tuple[float, list[float], int]:
    client = _client()
    started = time.perf_counter()
    body = _get(client, url)
    first = time.perf_counter() - started
    durations = []
    for _ in range(requests):
        started = time.perf_counter()
        body = _get(client, url)
        durations.append(time.perf_counter() - started)
    return first, durations, len(body)


def _get(client, url: str) -> bytes:  # type: ignore[no-untyped-def]
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content


if __name__ == "__main__":
    main()
