"""The trends page (home): the chained version index per scenario and each study's curves."""

import csv
import io
import json
import math
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

REFERENCE_2021 = {1: (437.2413, 412.9373), 16: (4778.467, 4668.131), 32: (8404.637, 8193.761), 64: (8546.134, 8361.549)}


def figure(response, figure_id: str) -> dict:
    match = re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', response.content.decode())
    assert match, f"no figure {figure_id}"
    return json.loads(match.group(1))


def published_pair(scenario, older: str, newer: str, ratios: dict[int, float], year: int, title: str) -> Study:
    study = StudyFactory(
        title=title, year=year, kind=Study.Kind.PUBLISHED, status=Study.Status.DONE, db_host=None, client_host=None
    )
    older_build = BuildFactory(version=older, name=f"PostgreSQL {older}")
    newer_build = BuildFactory(version=newer, name=f"PostgreSQL {newer}")
    for clients, ratio in ratios.items():
        for build, tps in ((older_build, 1000.0), (newer_build, 1000.0 * ratio)):
            TrialFactory(
                study=study,
                build=build,
                scenario=scenario,
                host=None,
                clients=clients,
                published=True,
                status=Trial.Status.SUCCEEDED,
                tps=tps,
            )
    return study


@pytest.mark.django_db
def test_it_shows_the_published_2021_reference_link_from_the_shipped_history(client):
    call_command("load_presets", stdout=io.StringIO())
    response = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    page = response.content.decode()
    study = Study.objects.get(year=2021)
    ratio = math.exp(sum(math.log(new / old) for old, new in _reference_2021_all()) / 8)
    assert f"× {ratio:.3f}" in page  # geometric mean of the eight published ratios: 0.974
    assert f'href="/studies/{study.pk}/">2021 {study.title}</a>' in page
    assert "Source: PGECons 2021年度WG1活動報告" in page  # a published study shows where its figures come from
    index_figure = figure(response, f"index-{study.trials.first().scenario_id}")
    segment = next(trace for trace in index_figure["data"] if "14" in trace["x"])
    assert segment["x"][-2:] == ["13", "14"]
    assert segment["y"][-1] == pytest.approx(segment["y"][-2] * ratio, abs=0.01)


def _reference_2021_all() -> list[tuple[float, float]]:
    return [
        *REFERENCE_2021.values(),
        (8405.358, 8229.714),
        (8310.025, 8120.542),
        (8218.915, 8055.056),
        (8188.156, 8000.038),
    ]


@pytest.mark.django_db
def test_the_index_line_breaks_where_no_study_links_two_versions(client):
    scenario = ScenarioFactory(slug="pgecons-reference", name="Reference")
    published_pair(scenario, "9.2", "9.3", {1: 1.10, 16: 1.10}, 2013, "nine two to nine three")
    published_pair(scenario, "13.4", "14.0", {1: 0.97, 16: 0.97}, 2021, "thirteen to fourteen")
    response = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en")
    traces = figure(response, f"index-{scenario.pk}")["data"]
    assert [trace["x"] for trace in traces] == [["9.2", "9.3"], ["13", "14"]]
    assert [trace["y"] for trace in traces] == [[100.0, 110.0], [100.0, 97.0]]
    assert (
        "No official study measured both 9.3 and 13: the line breaks here and restarts at 100."
        in response.content.decode()
    )


@pytest.mark.django_db
def test_it_draws_each_study_curves_with_one_line_per_version(client):
    scenario = ScenarioFactory(slug="pgecons-reference", name="Reference")
    study = published_pair(scenario, "13.4", "14.0", {1: 0.94, 16: 0.98}, 2021, "thirteen to fourteen")
    response = client.get(reverse("trends:index"))
    traces = figure(response, f"curves-{scenario.pk}-{study.pk}")["data"]
    assert [(trace["name"], trace["x"], trace["y"]) for trace in traces] == [
        ("PostgreSQL 13.4", [1, 16], [1000.0, 1000.0]),
        ("PostgreSQL 14.0", [1, 16], [940.0, 980.0]),
    ]


@pytest.mark.django_db
def test_the_page_loads_scripts_and_styles_only_from_our_own_static_files(client):
    scenario = ScenarioFactory(slug="pgecons-reference", name="Reference")
    published_pair(scenario, "13.4", "14.0", {1: 0.94}, 2021, "thirteen to fourteen")
    page = client.get(reverse("trends:index")).content.decode()
    sources = re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', page)
    assert sources == [
        "/static/css/site.css",
        "/static/favicon.svg",
        "/changes/feed.atom",  # the feed's autodiscovery link: no script or style
        "/static/vendor/plotly-scatter-bar.min.js",
        "/static/vendor/plotly-locale-ja.js",
        "/static/js/plotly_locale.js",
        "/static/js/charts.js",
        "/static/js/trends.js",
    ]


@pytest.mark.django_db
def test_an_anonymous_visitor_is_sent_to_the_login_page_when_reading_is_not_public(client, settings):
    settings.PUBLIC_READ = False
    response = client.get(reverse("trends:index"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_a_logged_in_member_reads_the_page_when_reading_is_not_public(client, settings, django_user_model):
    settings.PUBLIC_READ = False
    client.force_login(django_user_model.objects.create_user("member"))
    assert client.get(reverse("trends:index")).status_code == 200


def smoke_study(scenario) -> Study:
    """What a new user gets from a 3-second study of 13 and 15 on a small machine: done, measured, not official."""
    old, new = BuildFactory(version="13.23"), BuildFactory(version="15.14")
    study = StudyFactory(title="smoke", year=2026, builds=[old, new], baseline=old, status=Study.Status.DONE)
    for build, tps in ((old, 100.0), (new, 135.4)):
        TrialFactory(study=study, build=build, scenario=scenario, status=Trial.Status.SUCCEEDED, tps=tps)
    return study


def main_part(response) -> str:
    """The page's own content: the header around it carries a fresh CSRF token on every request."""
    return re.search(r"<main.*</main>", response.content.decode(), re.S).group(0)


@pytest.mark.django_db
def test_a_smoke_study_does_not_change_the_home_page_or_the_trends_file(client):
    call_command("load_presets", stdout=io.StringIO())
    home_before = main_part(client.get(reverse("trends:index")))
    csv_before = b"".join(client.get(reverse("trends:csv")).streaming_content)

    study = smoke_study(ScenarioFactory(slug="pgecons-update"))

    assert main_part(client.get(reverse("trends:index"))) == home_before
    assert b"".join(client.get(reverse("trends:csv")).streaming_content) == csv_before
    study.mark_official(True)
    assert b"".join(client.get(reverse("trends:csv")).streaming_content) != csv_before  # official, it counts


@pytest.mark.django_db
def test_the_page_explains_the_index_and_draws_it_from_zero(client):
    scenario = ScenarioFactory(slug="pgecons-reference", name="Reference")
    published_pair(scenario, "13.4", "14.0", {1: 0.973, 16: 0.973}, 2021, "thirteen to fourteen")
    response = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    assert "How the index is computed" in page
    assert "the geometric mean, over the client levels both measured" in page
    assert "more shared client levels; then the newer study (year)" in page
    assert "Two builds of one major in one study (13.2 and 13.4) are kept apart" in page
    layout = figure(response, f"index-{scenario.pk}")["layout"]
    assert layout["yaxis"]["rangemode"] == "tozero"  # a 2.7% drop is not drawn as a cliff
    assert [(shape["y0"], shape["y1"]) for shape in layout["shapes"]] == [(100.0, 100.0)]


@pytest.mark.django_db
def test_the_shipped_history_links_9_3_and_9_4_by_their_peaks_and_lists_every_link(client):
    call_command("load_presets", stdout=io.StringIO())
    response = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    update = re.search(r'<section class="card trend-section" id="trend-pgecons-update">(.*?)</section>', page, re.S)
    section = update.group(1)
    assert "9.3 → 9.4 × 1.206" in section  # 41,000 / 34,000, the seed's 「1.2倍」
    assert re.search(
        r"not used: another study(&#x27;|')s link of these versions is preferred", section
    )  # the 1.7 at 384
    tpcb = re.search(r'id="trend-pgbench-tpcb">(.*?)</section>', page, re.S).group(1)
    assert "No official study measured both 8.3 and 9.4: the line breaks here and restarts at 100." in tpcb
    assert "not used: these versions are already joined by nearer links" in tpcb  # EDB 9.4 -> 11


@pytest.mark.django_db
def test_an_official_point_carries_its_interval_on_the_chart_in_the_table_and_in_the_file(client):
    from tests.factories import succeeded_runs

    scenario = ScenarioFactory(slug="interval-reference", name="Reference")
    old, new = BuildFactory(version="13.4", name="PostgreSQL 13.4"), BuildFactory(version="14.0", name="PG 14.0")
    study = StudyFactory(
        builds=[old, new], baseline=old, scenarios=[scenario], status=Study.Status.DONE, official=True, year=2024
    )
    runs = [1000.0, 1010.0, 990.0, 1005.0, 995.0]
    succeeded_runs(study, scenario, {(old, 1): runs, (new, 1): [run * 0.9 for run in runs]})

    response = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en")
    trends_file = b"".join(client.get(reverse("trends:csv")).streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(trends_file)))

    [segment] = [trace for trace in figure(response, f"index-{scenario.pk}")["data"] if trace["x"] == ["13", "14"]]
    below, above = segment["error_y"]["arrayminus"][1], segment["error_y"]["array"][1]
    assert segment["y"][1] == pytest.approx(90.0) and below > 0 and above > 0
    assert "interval " in segment["hovertext"][1]
    low, high = 90.0 - below, 90.0 + above
    assert f"{low:.1f} – {high:.1f}" in response.content.decode()  # the index table says it too
    [row] = [row for row in rows if row["kind"] == "index" and row["version"] == "14"]
    assert float(row["index_low"]) == pytest.approx(low, abs=0.01)
    assert float(row["index_high"]) == pytest.approx(high, abs=0.01)


@pytest.mark.django_db
def test_the_home_page_names_the_versions_and_years_the_shipped_history_lacks(client):
    from django.utils import timezone

    from benchdash.trends.coverage import history_coverage

    call_command("load_presets", stdout=io.StringIO())
    this_year = timezone.localdate().year

    coverage = history_coverage(this_year)
    page = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    # The issue counted 9.3, 9.4, 9.6, 11, 13 and 14; DoRuby's 2008 post adds 8.1 and 8.3.
    assert coverage.versions == ["8.1", "8.3", "9.3", "9.4", "9.6", "11", "13", "14"]
    assert coverage.missing_versions == ["8.2", "8.4", "9.0", "9.1", "9.2", "9.5", "10", "12"]
    assert "Official figures exist for PostgreSQL 8.1, 8.3, 9.3, 9.4, 9.6, 11, 13, 14." in page
    assert "No official figures for 8.2, 8.4, 9.0, 9.1, 9.2, 9.5, 10, 12." in page
    assert this_year in coverage.missing_years + coverage.years and 2013 in coverage.missing_years
    assert f"No official study in {', '.join(coverage.missing_year_spans)}." in page


@pytest.mark.django_db
def test_the_missing_versions_and_years_follow_the_official_studies_in_the_store(client):
    from benchdash.trends.coverage import history_coverage
    from tests.factories import succeeded_runs

    scenario = ScenarioFactory(slug="coverage", name="Coverage")
    for year, older, newer in ((2014, "9.3.5", "9.4.0"), (2017, "9.6.1", "10.0")):
        old, new = BuildFactory(version=older), BuildFactory(version=newer)
        study = StudyFactory(year=year, builds=[old, new], baseline=old, scenarios=[scenario], official=True)
        succeeded_runs(study, scenario, {(old, 1): [100.0], (new, 1): [110.0]})
    BuildFactory(version="12.1")  # registered, never in an official study: past the figures, not stated

    coverage = history_coverage(2019)

    assert (coverage.versions, coverage.missing_versions) == (["9.3", "9.4", "9.6", "10"], ["9.5"])
    assert (coverage.years, coverage.missing_years) == ([2014, 2017], [2015, 2016, 2018, 2019])
    assert coverage.missing_year_spans == ["2015–2016", "2018–2019"]
