"""The first study on a new host: runs paired by round give an interval on their own degrees of freedom
(studies/results/pooled.py, own_paired_interval), so that 3 rounds can tell without any host history."""

import math
import statistics

import pytest

from benchdash.studies.results.pooled import HostSpread, Runs, cell_interval, own_paired_interval
from benchdash.studies.results.uncertainty import Method, Verdict, verdict

T_2 = 4.302653  # t(0.975, 2): 3 rounds
ROUNDS = [1, 2, 3]
# Issue 42: the server on 2 CPUs against 1, 2 clients, 3 runs a side on a new host; within each round 2 CPUs gave
# x1.33, x1.41 and x1.37, and the host's throughput moved a few % between rounds.
ONE_CPU = Runs([5120.0, 5290.0, 5010.0], rounds=ROUNDS)
TWO_CPUS = Runs([5120.0 * 1.33, 5290.0 * 1.41, 5010.0 * 1.37], rounds=ROUNDS)


def test_three_rounds_on_a_new_host_call_the_two_cpus_faster():
    interval = cell_interval(TWO_CPUS, ONE_CPU, None)
    differences = [math.log(1.33), math.log(1.41), math.log(1.37)]
    half = T_2 * statistics.stdev(differences) / math.sqrt(3)
    assert interval.method == Method.PAIRED_OWN and interval.degrees == 2 and interval.confidence == 0.95
    assert interval.low == pytest.approx(math.exp(statistics.fmean(differences) - half), rel=1e-6)
    assert interval.high == pytest.approx(math.exp(statistics.fmean(differences) + half), rel=1e-6)
    assert 1.25 < interval.low < 1.37 < interval.high < 1.50
    assert verdict(interval) == Verdict.FASTER


def test_one_build_against_itself_on_a_new_host_cannot_tell():
    again = Runs([5190.0, 5160.0, 5080.0], rounds=ROUNDS)  # x1.014, x0.975, x1.014: a few % from round to round
    interval = cell_interval(again, ONE_CPU, None)
    assert interval.method == Method.PAIRED_OWN and interval.low < 0.98 and interval.high > 1.02
    assert verdict(interval) == Verdict.CANT_TELL


def test_a_history_too_short_to_borrow_counts_as_none():
    interval = cell_interval(TWO_CPUS, ONE_CPU, HostSpread(1e-4, 7))
    assert interval == cell_interval(TWO_CPUS, ONE_CPU, None)


def test_fewer_than_two_paired_rounds_are_too_few_runs_to_tell():
    assert own_paired_interval([math.log(1.37)]) is None
    assert own_paired_interval([math.log(1.37)] * 3) is None  # no spread at all: nothing measured it
    apart = Runs(TWO_CPUS.tps, rounds=[4, 5, 6])  # no round holds a run of both sides: 3 against 3 unpaired
    assert verdict(cell_interval(apart, ONE_CPU, None)) == Verdict.TOO_FEW_RUNS
    assert verdict(cell_interval(Runs(TWO_CPUS.tps), ONE_CPU, None)) == Verdict.TOO_FEW_RUNS  # runs without rounds


def test_more_rounds_take_more_degrees_of_freedom():
    differences = [0.31, 0.35, 0.29, 0.33, 0.30]
    interval = own_paired_interval(differences)
    half = 2.776445 * statistics.stdev(differences) / math.sqrt(5)  # t(0.975, 4)
    assert interval.degrees == 4 and interval.low == pytest.approx(math.exp(0.316 - half), rel=1e-6)


@pytest.mark.django_db
def test_the_study_page_and_its_report_name_the_method_of_a_first_study(client):
    import io

    from django.urls import reverse
    from pypdf import PdfReader

    from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs

    scenario = ScenarioFactory(slug="select-only-first")
    one, two = BuildFactory(version="17.0", name="1 CPU"), BuildFactory(version="17.1", name="2 CPUs")
    study = StudyFactory(db_host=HostFactory(name="new"), builds=[one, two], scenarios=[scenario], baseline=one)
    succeeded_runs(study, scenario, {(one, 2): list(ONE_CPU.tps), (two, 2): list(TWO_CPUS.tps)})
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "paired by round, 2 df, no host history" in page and "too few runs to tell</span>" not in page
    japanese = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "ラウンドごとに対にした t、自由度 2、ホストの履歴なし" in japanese
    url = reverse("reports:study_file", kwargs={"pk": study.pk, "language": "en", "extension": "pdf"})
    pdf = PdfReader(io.BytesIO(client.get(url).content))
    text = " ".join(" ".join(page.extract_text() for page in pdf.pages).split())
    assert ", paired by round, 2 df, no host history), faster" in text
