"""The database side of the results: the points of `compare.py`, read from the maintained StudyPoint rows.

Pages read StudyPoint (one row per study x build x scenario x clients, kept by `store.py` whenever
trials change), never the trials themselves: 1,000,000 trials across 40 studies make 1,600 points
(bench/pages_and_csv.py). Only counted trials (succeeded, with a TPS) make a point.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from django.db.models import Aggregate, F, FloatField, QuerySet

from benchdash.studies.models import Statistic, Study, StudyPoint, Trial
from benchdash.studies.results.axes import study_line_levels
from benchdash.studies.results.compare import Comparing, Point, compare_with_baseline
from benchdash.studies.results.comparisons import Comparison, study_comparisons
from benchdash.studies.results.host_spread import spread_source, study_spreads
from benchdash.studies.results.lines import StudyLines, study_lines
from benchdash.studies.results.uncertainty import Method

# The intervals that borrow the host's spread history (pooled.py).
BORROWING = (Method.POOLED_T, Method.PAIRED_T)


class Median(Aggregate):
    """percentile_cont(0.5): the median, interpolated between the two middle values of an even count."""

    function = "percentile_cont"
    name = "Median"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def counted_trials() -> QuerySet[Trial]:
    """The trials whose TPS counts in a point: succeeded (measured or published), with a figure, not a warm-up."""
    return Trial.objects.filter(status=Trial.Status.SUCCEEDED, tps__isnull=False, warmup=False)


def points_of(study_points: QuerySet[StudyPoint], *, with_runs: bool = False) -> list[Point]:
    """StudyPoint rows as plain Points (one query, build and scenario names joined in); each point's runs only
    when asked (a study page, and the trends, whose links draw their intervals from them)."""
    extra = ("runs", "rounds") if with_runs else ()
    rows = study_points.values(
        "study_id",
        "build_id",
        "scenario_id",
        "clients",
        "conditions",
        "median",
        "minimum",
        "maximum",
        "n",
        "mean",
        *extra,
        "variant_id",
        statistic=F("study__statistic"),
        build_name=F("build__name"),
        build_version=F("build__version"),
        scenario_slug=F("scenario__slug"),
        variant_label=F("variant__label"),
    )
    return [
        Point(**(row | _as_tuples(row, "runs", "rounds") | {"variant_label": row["variant_label"] or ""}))
        for row in rows
    ]


def _as_tuples(row: dict, *names: str) -> dict[str, tuple]:
    return {name: tuple(row.get(name, ())) for name in names}


def study_results(study: Study) -> list[Point]:
    """The points of one study (median, mean, min, max, n and runs per line x scenario x clients x conditions), compared
    with its baseline at the study's threshold, by its design's looks and its DB host's recent spread. Its lines
    are its builds, or in a variant study its variants (lines.py)."""
    lines = study_lines(study)
    return compare_with_baseline(_line_points(study, lines), lines.baseline_id, study_comparing(study))


def study_results_compared(study: Study, comparing: Comparing | None = None) -> tuple[list[Point], list[Comparison]]:
    """study_results, and the study's comparisons over them (results/comparisons.py: each cell against the cell that
    differs from it in one axis alone), the DB host's history read once for both (or given, in `comparing`)."""
    lines, comparing = study_lines(study), comparing or study_comparing(study)
    points = compare_with_baseline(_line_points(study, lines), lines.baseline_id, comparing)
    levels = study_line_levels(study, lines, points)
    return points, study_comparisons(points, levels, lines.baseline_id, comparing)


def study_comparing(study: Study) -> Comparing:
    """How the study compares two points: at its threshold, by its design's looks, with its DB host's recent spread
    (a measured study's), peaks with peaks in a study of peak figures."""
    spreads = study_spreads(study) if study.kind == Study.Kind.MEASURED else {}
    return Comparing(study.statistic == Statistic.PEAK, study.threshold, study.design, spreads)


def study_history_sources(study: Study, points: Iterable[Point], comparing: Comparing | None = None) -> list[str]:
    """Where the spread history came from that the study's intervals borrowed, in words, each source once: "from 4
    studies on m5a.8xlarge instances" (host_spread.spread_source); empty where no interval borrowed one. The history
    is the one `comparing` holds where the caller compared the points with it (read once)."""
    spreads = (comparing or study_comparing(study)).spreads
    borrowed = {
        spreads[(point.scenario_id, point.clients)]
        for point in points
        if point.interval is not None
        and point.interval.method in BORROWING
        and (point.scenario_id, point.clients) in spreads
    }
    return sorted({spread_source(spread) for spread in borrowed})


def _line_points(study: Study, lines: StudyLines) -> list[Point]:
    """The study's points, each keyed by its line: its variant's id in a variant study, else its build's."""
    points = points_of(StudyPoint.objects.filter(study=study), with_runs=True)
    if lines.by_variant:
        return [replace(point, build_id=point.variant_id) for point in points if point.variant_id is not None]
    return [replace(point, variant_label="") for point in points]
