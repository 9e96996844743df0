"""A minor-release series of a study of means draws the means, on an axis that says so, as its ratios compare them."""

from django.utils import translation

from benchdash.changes.charts import minor_series_figure
from benchdash.studies.results.compare import Point
from benchdash.studies.results.uncertainty import RatioInterval


def point(build_id: int, version: str, median: float, mean: float, **fields) -> Point:
    return Point(
        study_id=1,
        build_id=build_id,
        build_name=f"PostgreSQL {version}",
        build_version=version,
        scenario_id=1,
        scenario_slug="tpcb",
        clients=10,
        median=median,
        minimum=None,
        maximum=None,
        n=10,
        mean=mean,
        statistic="mean",
        **fields,
    )


def test_a_series_of_means_draws_the_means_and_their_intervals_around_them():
    interval = RatioInterval(1.05, 1.15, 0.95)
    points = [point(1, "17.0", 400.0, 380.0), point(2, "17.1", 450.0, 418.0, interval=interval)]
    with translation.override("en"):
        figure = minor_series_figure(points, 1, [])
    trace = figure["data"][0]
    assert trace["y"] == [380.0, 418.0]
    assert trace["error_y"]["array"] == [None, round(380.0 * 1.15 - 418.0, 2)]
    assert figure["layout"]["yaxis"]["title"]["text"] == "TPS (mean)"
