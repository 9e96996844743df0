"""A report's CSV bundle: one zip holding, per study, the files its pages offer (the report's wide table, the
summary, the comparisons, every trial, the evidence), each written by the same code as its download, and a
manifest.json."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Sequence

from benchdash.reports.content import StudyReport
from benchdash.studies.csv_export import (
    COMPARISON_HEADER,
    SUMMARY_HEADER,
    comparison_rows,
    python_csv,
    summary_rows,
    trials_csv_chunks,
)
from benchdash.studies.evidence import export
from benchdash.studies.results.report import report_columns, report_header, report_rows


def report_zip(reports: Sequence[StudyReport]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for report in reports:
            for name, chunks in study_files(report):
                bundle.writestr(f"study-{report.study.pk}/{name}", b"".join(chunks))
        manifests = [report.manifest.as_dict() for report in reports]
        bundle.writestr("manifest.json", json.dumps(manifests, ensure_ascii=False, indent=2))
    return buffer.getvalue()


def study_files(report: StudyReport) -> list[tuple[str, Iterable[bytes]]]:
    """Each file's name and its bytes, named as the study's downloads are."""
    study = report.study
    tables = [section.table for section in report.sections]
    columns = report_columns(tables)
    points = [point for table in tables for point in table.points]
    comparisons = [comparison for table in tables for comparison in table.comparisons]
    prefix = f"benchdash-study-{study.pk}"
    header = report_header(tables, columns, study.statistic)
    return [
        (f"{prefix}-report.csv", python_csv(header, report_rows(tables, columns))),
        (f"{prefix}-summary.csv", python_csv(SUMMARY_HEADER, summary_rows(study, points, comparisons))),
        (f"{prefix}-comparisons.csv", python_csv(COMPARISON_HEADER, comparison_rows(study, comparisons))),
        (f"{prefix}-trials.csv", trials_csv_chunks(study)),
        (f"{prefix}-evidence.csv", python_csv(export.EVIDENCE_HEADER, export.evidence_csv_rows(study))),
    ]
