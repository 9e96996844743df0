"""A study reports the statistic its seed states (issue 41, point 2): the median of its runs, or their mean (seeds 002
and 003 average 10 runs) with a t interval of its own, on the runs or on the rounds both sides ran; its pages, report
and ratios use that figure, and the CSV carries the median and the mean both."""

import csv
import io
import math
import statistics

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from benchdash.studies.models import Statistic, Study, StudyPoint
from benchdash.studies.results.mean import mean_interval, mean_ratio_interval
from benchdash.studies.results.pooled import Runs
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.uncertainty import Method, Verdict, verdict
from benchdash.studies.validation import check_study
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs

T_4 = 2.776445  # t(0.975, 4): 5 rounds
ROUNDS = [1, 2, 3, 4, 5]
# Skewed runs, as a run now and then is slowed by a checkpoint: the mean lies below the median.
OLD = [400.0, 410.0, 405.0, 300.0, 402.0]
NEW = [440.0, 452.0, 446.0, 330.0, 441.0]


def test_a_cell_s_mean_comes_with_its_t_interval_on_its_runs():
    interval = mean_interval(OLD)
    half = T_4 * statistics.stdev(OLD) / math.sqrt(5)
    assert interval.degrees == 4
    assert (interval.low, interval.high) == pytest.approx((383.4 - half, 383.4 + half), rel=1e-6)
    assert mean_interval([400.0]) is None


def test_the_ratio_of_means_paired_by_round_takes_the_rounds_degrees_of_freedom():
    interval = mean_ratio_interval(Runs(NEW, ROUNDS), Runs(OLD, ROUNDS))
    new_mean, old_mean = statistics.fmean(NEW), statistics.fmean(OLD)
    moves = [new / new_mean - old / old_mean for new, old in zip(NEW, OLD, strict=True)]
    half = T_4 * statistics.stdev(moves) / math.sqrt(5)
    assert interval.method == Method.MEAN_PAIRED_T and interval.degrees == 4
    assert interval.low == pytest.approx(new_mean / old_mean * math.exp(-half), rel=1e-9)
    assert interval.high == pytest.approx(new_mean / old_mean * math.exp(half), rel=1e-9)
    assert interval.low < new_mean / old_mean < interval.high
    assert verdict(interval) == Verdict.FASTER  # +10% in every round: the slow round falls out of the pairs


def test_the_ratio_of_means_without_rounds_is_a_welch_t_on_the_runs():
    interval = mean_ratio_interval(Runs(NEW), Runs(OLD))
    parts = [statistics.variance(side) / (5 * statistics.fmean(side) ** 2) for side in (NEW, OLD)]
    welch = sum(parts) ** 2 / sum(part**2 / 4 for part in parts)
    assert interval.method == Method.MEAN_T and interval.degrees == math.floor(welch) == 7
    assert interval.low * interval.high == pytest.approx((statistics.fmean(NEW) / statistics.fmean(OLD)) ** 2)
    assert verdict(interval) == Verdict.CANT_TELL  # unpaired, the slow runs spread both sides too widely


def test_runs_that_do_not_spread_or_are_too_few_give_no_interval_of_the_mean():
    assert mean_ratio_interval(Runs([440.0, 440.0]), Runs([400.0, 400.0])) is None
    assert mean_ratio_interval(Runs([440.0]), Runs([400.0, 401.0])) is None
    assert mean_ratio_interval(Runs([440.0, 0.0]), Runs([400.0, 401.0])) is None


@pytest.fixture
def measured(db):
    scenario = ScenarioFactory(slug="tpcb-mean")
    old, new = BuildFactory(version="8.1.4", name="8.1.4"), BuildFactory(version="8.3.1", name="8.3.1")

    def study(statistic: str) -> Study:
        made = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, statistic=statistic, repetitions=5)
        succeeded_runs(made, scenario, {(old, 10): OLD, (new, 10): NEW})
        return made

    return study


def test_a_study_of_means_stores_both_and_compares_the_means(measured):
    study = measured(Statistic.MEAN)
    stored = StudyPoint.objects.get(study=study, build__name="8.1.4")
    assert (stored.median, stored.mean) == (402.0, pytest.approx(383.4))
    new = next(point for point in study_results(study) if point.build_name == "8.3.1")
    assert new.figure == pytest.approx(statistics.fmean(NEW)) and new.median == 441.0
    assert new.ratio == pytest.approx(statistics.fmean(NEW) / 383.4)
    assert new.interval.method == Method.MEAN_PAIRED_T and new.verdict == Verdict.FASTER


def test_a_study_of_medians_of_the_same_runs_compares_the_medians(measured):
    new = next(point for point in study_results(measured(Statistic.MEDIAN)) if point.build_name == "8.3.1")
    assert new.figure == 441.0 and new.ratio == pytest.approx(441.0 / 402.0)
    assert new.interval.method not in (Method.MEAN_T, Method.MEAN_PAIRED_T)


def test_the_summary_csv_carries_the_median_the_mean_and_the_mean_s_interval(client, measured):
    study = measured(Statistic.MEAN)
    response = client.get(reverse("studies:summary_csv", args=[study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    old = next(row for row in rows if row["build"] == "8.1.4")
    interval = mean_interval(OLD)
    assert (old["median_tps"], old["mean_tps"], old["statistic"]) == ("402.0", "383.4", "mean")
    assert (float(old["mean_low"]), float(old["mean_high"])) == (round(interval.low, 4), round(interval.high, 4))
    new = next(row for row in rows if row["build"] == "8.3.1")
    assert new["interval_method"] == "mean_paired_t"
    assert float(new["ratio_to_baseline"]) == round(statistics.fmean(NEW) / 383.4, 4)


def test_the_study_page_and_its_report_show_the_means(client, measured):
    study = measured(Statistic.MEAN)
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "mean (min – max), n, CV" in page and "<strong>383.40</strong>" in page
    assert "t on the means, runs paired by round, 4 df" in page
    japanese = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "平均値（最小 – 最大）" in japanese and "平均の t、ラウンドごとに対にした測定、自由度 4" in japanese
    assert "平均値の比の 95% t 区間" in japanese and "線は平均値を結び" in japanese
    response = client.get(reverse("studies:report_csv", args=[study.pk]))
    report = b"".join(response.streaming_content).decode("utf-8-sig")
    assert report.splitlines()[0] == "scenario,clients,8.1.4 mean_tps,8.3.1 mean_tps,8.3.1 / 8.1.4 %"
    assert report.splitlines()[1] == "tpcb-mean,10,383.4,421.8,110"


@pytest.fixture
def entries(db):
    call_command("load_presets", stdout=io.StringIO())
    BuildFactory(name="pg13", version="13.23")
    return HostFactory(name="local", address="")


def queue_study(*args: str) -> Study:
    out = io.StringIO()
    call_command("queue_study", *args, stdout=out)
    return Study.objects.get(pk=int(out.getvalue()))


def test_the_seed_003_preset_queues_a_study_of_means_and_the_command_line_may_say_otherwise(entries):
    assert queue_study("--preset", "doruby-2008-transactions", "--builds", "pg13").statistic == Statistic.MEAN
    median = ("--preset", "doruby-2008-transactions", "--builds", "pg13", "--statistic", "median")
    assert queue_study(*median).statistic == Statistic.MEDIAN
    assert queue_study("--preset", "pgecons-2021-reference", "--builds", "pg13").statistic == Statistic.MEDIAN


def test_queue_study_refuses_a_statistic_a_measured_study_cannot_report(entries):
    before = Study.objects.count()
    with pytest.raises(CommandError, match="invalid choice: 'peak'"):
        call_command("queue_study", "--preset", "pgecons-2021-reference", "--builds", "pg13", "--statistic", "peak")
    assert Study.objects.count() == before


def test_a_study_measured_here_reporting_peaks_is_refused_at_its_field():
    problems: list[tuple[str, str]] = []
    with translation.override("en"):
        check_study({"statistic": Statistic.PEAK}, lambda name, error: problems.append((name, str(error))))
    assert problems == [("statistic", "A study measured here reports the median or the mean of its runs.")]
    check_study({"statistic": Statistic.MEAN}, lambda name, error: problems.append((name, str(error))))
    assert len(problems) == 1
