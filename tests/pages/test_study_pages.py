"""The study list and the study page: charts, the comparison with the baseline, the trials."""

import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory, succeeded_runs


def figure(page: str, figure_id: str) -> dict:
    match = re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', page)
    assert match, f"no figure {figure_id}"
    return json.loads(match.group(1))


def comparison_rows(page: str) -> list[list[str]]:
    table = re.search(r'<table class="data comparison">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [
        [re.sub(r"<[^>]+>|\s+", " ", cell).split() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in rows
    ]


@pytest.fixture
def measured_study(db):
    """Two builds x 2 client levels x 3 repetitions; at 2 clients the ranges are apart, at 1 they overlap."""
    scenario = ScenarioFactory(slug="pgbench-select-only", name="Select only")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    study = StudyFactory(title="local check", year=2025, builds=[old, new], scenarios=[scenario], baseline=old)
    figures = {
        (old, 1): [100.0, 110.0, 120.0],
        (new, 1): [105.0, 115.0, 125.0],
        (old, 2): [200.0, 210.0, 205.0],
        (new, 2): [300.0, 290.0, 310.0],
    }
    succeeded_runs(study, scenario, figures)
    return study


@pytest.mark.django_db
def test_the_2021_reference_page_shows_94_percent_at_one_client_and_the_published_medians(client):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(year=2021)
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = comparison_rows(page)
    # Each figure is the median of 3 runs, as the source says; their range is not published.
    assert rows[0] == [["1"], ["437.24", "n=3"], ["412.94", "n=3"], ["94%"]]
    assert rows[1] == [["16"], ["4,778.47", "n=3"], ["4,668.13", "n=3"], ["98%"]]
    assert "▲ " not in page.split("<tbody>")[1]  # no published range: nothing to compare
    assert "PGECons 2021年度WG1活動報告" in page
    assert "m5a.8xlarge" in page


def trial_rows(page: str) -> list[list[str]]:
    table = re.search(r'<table class="data trials">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)] for row in rows
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "axis", "header"),
    [
        ("TPS by clients", "TPS (mean)", "mean, n"),
        ("relative at 384 sessions", "relative (baseline = 100)", "relative (baseline = 100), n"),
        ("peak TPS", "TPS (peak)", "peak (the highest over client levels), n"),
        ("定点観測 参照系", "TPS (median)", "median, n"),
    ],
)
def test_a_published_study_is_labelled_with_the_statistic_its_source_states(client, title, axis, header):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(title__contains=title)
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    [chart] = [figure(page, f"chart-{scenario.pk}") for scenario in study.scenarios.all()]
    assert chart["layout"]["yaxis"]["title"]["text"] == axis
    assert all("error_y" not in trace for trace in chart["data"])  # a published figure has no range
    assert f'<span class="muted">{header}</span>' in page
    assert "median (min – max), n" not in page


@pytest.mark.django_db
def test_published_figures_show_unknown_threads_repetition_and_order_as_unknown(client):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(title__contains="peak TPS")
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = trial_rows(page)
    # order, build, scenario, clients (conditions), threads, repetition
    assert [row[:6] for row in rows] == [
        ["—", "PostgreSQL 9.3", "pgecons-update", "192 15 cores", "—", "—"],
        ["—", "PostgreSQL 9.4rc1", "pgecons-update", "320 15 cores", "—", "—"],
    ]
    assert re.search(r"<dt>Repetitions</dt><dd>—\s*<span class=\"muted\">\(not stated by the source\)", page)
    # peak with peak (「9.3と比べて1.2倍」), whatever client count each peak was at
    assert comparison_rows(page) == [
        [["192", "15", "cores"], ["34,000.00", "n=—"], ["—"], ["—"]],
        [["320", "15", "cores"], ["—"], ["41,000.00", "n=—"], ["121%"]],
    ]


@pytest.mark.django_db
def test_a_year_the_source_does_not_state_is_shown_as_inferred(client):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(title__contains="EDB")
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r"<h1>2018 <span[^>]*>\(year inferred\)</span> EDB", page)
    listing = client.get(reverse("studies:list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert listing.count("(year inferred)") == 3  # EDB and the two DoRuby studies


@pytest.mark.django_db
def test_runs_that_differ_in_transactions_per_client_are_separate_points_on_the_page(client):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(title__contains="transactions per client")
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert [row[0] for row in comparison_rows(page)] == [
        ["10", "-t", "10"],
        ["10", "-t", "100"],
        ["10", "-t", "500"],
        ["10", "-t", "1000"],
    ]
    [chart] = [figure(page, f"chart-{scenario.pk}") for scenario in study.scenarios.all()]
    assert chart["layout"]["xaxis"]["categoryarray"] == ["10 · -t 10", "10 · -t 100", "10 · -t 500", "10 · -t 1000"]
    assert chart["data"][1]["y"] == pytest.approx([368.715249, 328.353416, 202.543517, 165.649611], abs=1e-4)


@pytest.mark.django_db
def test_it_charts_medians_with_min_to_max_bars_one_line_per_build(client, measured_study):
    page = client.get(reverse("studies:detail", args=[measured_study.pk])).content.decode()
    scenario_id = measured_study.scenarios.get().pk
    traces = figure(page, f"chart-{scenario_id}")["data"]
    assert [trace["name"] for trace in traces] == ["PostgreSQL 13.4", "PostgreSQL 14.0"]
    assert traces[0]["x"] == [1, 2] and traces[0]["y"] == [110.0, 205.0]
    assert traces[1]["error_y"]["array"] == [10.0, 10.0]
    assert traces[1]["error_y"]["arrayminus"] == [10.0, 10.0]


@pytest.mark.django_db
def test_three_runs_a_side_on_a_new_host_show_their_spread_and_a_verdict_from_their_rounds(client, measured_study):
    page = client.get(reverse("studies:detail", args=[measured_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = comparison_rows(page)
    assert rows[0] == [
        ["1"],
        ["110.00", "(100.00", "–", "120.00)", "n=3", "CV", "9.1%"],
        ["115.00", "(105.00", "–", "125.00)", "n=3", "CV", "8.7%"],
        ["105%", "[103.5%", "–", "105.6%]", "faster", "paired", "by", "round,", "2", "df,", "no", "host", "history"],
    ]
    assert rows[1][-1][:5] == ["146%", "[129.1%", "–", "165.8%]", "faster"]  # x1.50, x1.38, x1.51 by round
    assert "too few runs to tell" not in page.split("In brackets")[0]  # no host history, yet 3 rounds can tell
    assert "the 95% interval of the ratio" in page
    assert "significant" not in page.lower()


@pytest.mark.django_db
def test_five_runs_a_side_give_an_interval_and_a_verdict_at_the_threshold(client, measured_study):
    scenario, old = measured_study.scenarios.get(), measured_study.baseline
    new = measured_study.builds.exclude(pk=old.pk).get()
    extra = {(old, 1): [115.0, 105.0], (new, 1): [110.0, 120.0], (old, 2): [195.0, 215.0], (new, 2): [295.0, 305.0]}
    succeeded_runs(measured_study, scenario, extra, first_repetition=4)
    page = client.get(reverse("studies:detail", args=[measured_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = comparison_rows(page)
    # clients 1: the 3rd smallest and 3rd largest of the 25 pairwise ratios, 110/120 and 125/105.
    assert rows[0][-1] == ["105%", "[91.7%", "–", "119.0%]", "can&#x27;t", "tell", "rank", "interval"]
    # clients 2: 290/210 .. 310/200, wholly above +2%.
    assert rows[1][-1] == ["146%", "[138.1%", "–", "155.0%]", "faster", "rank", "interval"]
    assert "lies above +2%" in page


@pytest.mark.django_db
def test_it_links_to_the_csv_downloads(client, measured_study):
    page = client.get(reverse("studies:detail", args=[measured_study.pk])).content.decode()
    assert f'href="/studies/{measured_study.pk}/trials.csv"' in page
    assert f'href="/studies/{measured_study.pk}/summary.csv"' in page
    assert 'href="/trends.csv"' in page


@pytest.mark.django_db
def test_it_pages_through_many_trials(client):
    study = StudyFactory(client_levels=list(range(1, 121)))
    build, scenario = BuildFactory(), ScenarioFactory()
    for clients in range(1, 121):
        TrialFactory(study=study, build=build, scenario=scenario, clients=clients, position=clients)
    first = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    third = client.get(reverse("studies:detail", args=[study.pk]) + "?page=3", HTTP_ACCEPT_LANGUAGE="en")
    assert "page 1 of 3" in first and first.count('<tr>\n        <td class="num">') == 50
    assert "page 3 of 3" in third.content.decode()
    assert third.content.decode().count('<tr>\n        <td class="num">') == 20


@pytest.mark.django_db
def test_the_list_shows_year_title_versions_host_kind_and_status(client, measured_study):
    page = client.get(reverse("studies:list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = re.search(r"<tr>\s*<td>2025</td>(.*?)</tr>", page, re.S).group(1)
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    assert cells == ["local check", "13.4, 14.0", "local", "measured here", "not official", "draft", "12 / 12"]


@pytest.mark.django_db
def test_an_anonymous_visitor_is_sent_to_login_for_a_study_when_reading_is_not_public(client, settings, measured_study):
    settings.PUBLIC_READ = False
    for url in (reverse("studies:list"), reverse("studies:detail", args=[measured_study.pk])):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
