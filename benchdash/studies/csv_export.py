"""CSV downloads, streamed: trials, summary and comparisons of a study, and the cell rules every CSV file follows.

The column headers are a stable interface, documented in docs/CSV.md. Files are UTF-8 with a BOM
so that Excel reads Japanese titles correctly, and no text cell can run as a spreadsheet formula.
The trials file, the big one, is written by PostgreSQL (csv_copy.py); the small ones by Python's
csv module, with the same cell rules.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.http import StreamingHttpResponse
from django.utils import translation
from django.utils.http import content_disposition_header

from benchdash.studies.csv_cells import inert, rounded
from benchdash.studies.csv_copy import FlagText, InertText, LocalTimeText, copy_csv_chunks
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.compare import Point
from benchdash.studies.results.comparisons import Comparison, baseline_comparisons
from benchdash.studies.results.first_round import point_first_round_effect, study_first_round
from benchdash.studies.results.lines import study_lines
from benchdash.studies.results.mean import mean_interval

BOM = "\ufeff"
ROWS_PER_CHUNK = 1000

# The trials file: each column's header and the cell PostgreSQL renders for it, in file order.
TRIAL_COLUMNS: tuple[tuple[str, Any], ...] = (
    ("study_id", "study_id"),
    ("study", InertText("study__title")),
    ("year", "study__year"),
    ("host", InertText("host__name")),
    ("build", InertText("build__name")),
    ("build_version", InertText("build__version")),
    ("scenario", InertText("scenario__slug")),
    ("clients", "clients"),
    ("threads", "threads"),
    ("repetition", "repetition"),
    ("order", "position"),
    ("status", "status"),
    ("published", FlagText("published")),
    ("tps", "tps"),
    ("tps_including_connections", "tps_including_connections"),
    ("latency_avg_ms", "latency_avg_ms"),
    ("latency_stddev_ms", "latency_stddev_ms"),
    ("transactions", "transactions"),
    ("failed_transactions", "failed_transactions"),
    ("started_at", LocalTimeText("started_at")),
    ("finished_at", LocalTimeText("finished_at")),
    ("statistic", "statistic"),
    ("conditions", InertText("conditions")),
    # Appended, as every column since the first files: the line the trial belongs to (a trial without a variant,
    # written before variants, is its build's line).
    ("variant", InertText(Coalesce("variant__label", "build__name"))),
    # Appended: a warm-up run (round 0, the study's warmup_runs), run and never counted in a point.
    ("warmup", FlagText("warmup")),
    # Appended: how the study ran its sides (sequential, duet, duet_aa), and a duet side's half of the DB host's CPUs
    # (0, 1) with the CPUs it held then.
    ("arrangement", "study__arrangement"),
    ("duet_half", "duet_half"),
    ("duet_cpus", InertText("duet_cpus")),
)
TRIAL_HEADER = tuple(header for header, _cell in TRIAL_COLUMNS)
SUMMARY_HEADER = (
    "study_id",
    "study",
    "year",
    "scenario",
    "build",
    "build_version",
    "baseline",
    "clients",
    "median_tps",
    "min_tps",
    "max_tps",
    "n",
    "ratio_to_baseline",
    "ranges_disjoint",
    "conditions",
    "statistic",
    "cv",
    "ratio_low",
    "ratio_high",
    "interval_confidence",
    "verdict",
    "threshold",
    "variant",
    "interval_method",
    "ratio_axis",
    "compared_with",
    # Appended: the mean of the runs beside their median, whatever the study reports, and the mean's own t interval.
    "mean_tps",
    "mean_low",
    "mean_high",
    # Appended: the point's first round against its other runs, and the study's first-round effect over its points
    # with the chance of it where the host does not warm up (results/first_round.py).
    "first_round_effect",
    "study_first_round_effect",
    "study_first_round_p",
    # Appended: the study's design as the page says it ("duet: both sides at once, CPUs 0-7 / 8-15, swapped each
    # round"), in English.
    "design",
)
# The comparisons file: a row per cell compared with the cell that differs from it in one axis alone.
COMPARISON_HEADER = (
    "study_id",
    "study",
    "year",
    "scenario",
    "clients",
    "conditions",
    "axis",
    "level",
    "reference_level",
    "context",
    "variant",
    "compared_with",
    "median_tps",
    "compared_with_median_tps",
    "ratio",
    "ratio_low",
    "ratio_high",
    "interval_confidence",
    "verdict",
    "interval_method",
    "threshold",
    "statistic",
)


def csv_chunks(rows: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """Rows encoded by Python's csv module, about ROWS_PER_CHUNK rows per chunk."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    # The csv module quotes a field holding \n (the line terminator) but not one holding a bare \r, which a
    # spreadsheet reads as a line break: what follows it would start a line, as a formula if it looks like one.
    quoting_writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for count, row in enumerate(rows, start=1):
        cells = [_cell(value) for value in row]
        holds_cr = any(isinstance(cell, str) and "\r" in cell for cell in cells)
        (quoting_writer if holds_cr else writer).writerow(cells)
        if count % ROWS_PER_CHUNK == 0:
            yield _drain(buffer)
    yield _drain(buffer)


def header_chunk(header: Sequence[str]) -> bytes:
    """The first bytes of every file: the BOM (for Excel), then the header line, its cells written as every other
    row's (a header may carry a build's name)."""
    return BOM.encode("utf-8") + b"".join(csv_chunks([header]))


def csv_response(filename: str, chunks: Iterable[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(chunks, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response


def python_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """A small file (summary, trends) written by Python's csv module."""
    yield header_chunk(header)
    yield from csv_chunks(rows)


def trials_csv_chunks(study: Study) -> Iterator[bytes]:
    """A row per trial in run order, written by PostgreSQL (COPY): memory stays flat."""
    yield header_chunk(TRIAL_HEADER)
    yield from copy_csv_chunks(trial_rows(study))


def trial_rows(study: Study) -> QuerySet[Trial]:
    """The trials file's cells (TRIAL_COLUMNS), each rendered by PostgreSQL as the file wants it."""
    cells = [cell for _header, cell in TRIAL_COLUMNS]
    return Trial.objects.filter(study=study).order_by("position", "id").values_list(*cells)


def summary_rows(study: Study, points: Iterable[Point], comparisons: Iterable[Comparison]) -> Iterator[tuple[Any, ...]]:
    """A row per point; its ratio, interval and verdict are its comparison with the baseline, where the point differs
    from the baseline in one axis alone (ratio_axis names it), else blank: the comparisons file has every other."""
    baseline_id = study_lines(study).baseline_id
    against_baseline = baseline_comparisons(comparisons, baseline_id)
    points = list(points)
    first_round = study_first_round(points)
    with translation.override("en"):
        design = study.arrangement_text()
    for point in points:
        comparison = against_baseline.get(point.key)
        compared = comparison.point if comparison else without_ratio(point)
        interval, mean = compared.interval, mean_interval(point.runs)
        yield (
            study.id,
            study.title,
            study.year,
            point.scenario_slug,
            point.build_name,
            point.build_version,
            point.build_id == baseline_id,
            point.clients,
            point.median,
            point.minimum,
            point.maximum,
            point.n,
            "" if compared.ratio is None else compared.ratio,
            compared.ranges_disjoint,
            point.conditions,
            study.statistic,
            _blank(point.cv),
            "" if interval is None else interval.low,
            "" if interval is None else interval.high,
            "" if interval is None else interval.confidence,
            compared.verdict.value if compared.verdict else "",
            study.threshold,
            point.label,
            "" if interval is None else interval.method.value,
            comparison.column.axis.axis if comparison else "",
            comparison.reference.label if comparison else "",
            _blank(point.mean),
            "" if mean is None else mean.low,
            "" if mean is None else mean.high,
            _blank(point_first_round_effect(point)),
            "" if first_round is None else first_round.effect,
            "" if first_round is None else first_round.p_value,
            design,
        )


def comparison_rows(study: Study, comparisons: Iterable[Comparison]) -> Iterator[tuple[Any, ...]]:
    """A row per comparison (COMPARISON_HEADER): the axis, both sides, the other axes' levels, the ratio, its
    interval and verdict."""
    for comparison in comparisons:
        column, point, interval = comparison.column, comparison.point, comparison.point.interval
        yield (
            study.id,
            study.title,
            study.year,
            point.scenario_slug,
            point.clients,
            point.conditions,
            column.axis.axis,
            column.axis.level,
            column.reference_level,
            column.context_key_text,
            point.label,
            comparison.reference.label,
            point.median,
            comparison.reference.median,
            _blank(point.ratio),
            "" if interval is None else interval.low,
            "" if interval is None else interval.high,
            "" if interval is None else interval.confidence,
            point.verdict.value if point.verdict else "",
            "" if interval is None else interval.method.value,
            study.threshold,
            study.statistic,
        )


def without_ratio(point: Point) -> Point:
    """The point with no ratio, interval or verdict: one that differs from the baseline in more than one axis."""
    return replace(point, ratio=None, ranges_disjoint=None, interval=None, verdict=None)


def _blank(value: float | None) -> float | str:
    return "" if value is None else value


def _cell(value: Any) -> Any:
    if value is True or value is False:
        return "true" if value else "false"
    return inert(rounded(value))


def _drain(buffer: io.StringIO) -> bytes:
    data = buffer.getvalue().encode("utf-8")
    buffer.seek(0)
    buffer.truncate()
    return data
