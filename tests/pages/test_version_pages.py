"""A page per version (/versions/14/, /versions/14.3/): every figure of it from every study, published and measured,
official or not, by scenario and year; linked from wherever a build or a version is named."""

import re

import pytest
from django.urls import reverse

from benchdash.inventory.models import version_sort_range
from benchdash.studies.models import Study, Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory, succeeded_runs


@pytest.fixture
def versions(db: None) -> dict:
    scenario = ScenarioFactory(slug="update", name="更新系")
    builds = {version: BuildFactory(version=version) for version in ("13.4", "14.0", "14.3")}
    published = StudyFactory(
        title="2021年度WG1活動報告", year=2021, kind=Study.Kind.PUBLISHED, status=Study.Status.DONE, db_host=None
    )
    for build, tps in ((builds["13.4"], 437.2413), (builds["14.0"], 412.9373)):
        TrialFactory(
            study=published, build=build, scenario=scenario, host=None, clients=1, published=True,
            status=Trial.Status.SUCCEEDED, tps=tps,
        )  # fmt: skip
    measured = StudyFactory(
        title="smoke", year=2023, builds=[builds["14.3"]], scenarios=[scenario], status=Study.Status.DONE
    )
    succeeded_runs(measured, scenario, {(builds["14.3"], 1): [500.0, 510.0, 490.0], (builds["14.3"], 2): [900.0]})
    return {"builds": builds, "published": published, "measured": measured, "scenario": scenario}


def rows(page: str) -> list[str]:
    body = page.split('<table class="data version-table">', 1)[1].split("</table>", 1)[0]
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in body.split("<tr>")[2:]]


def test_a_major_shows_every_figure_of_its_minors_by_year_marked(client, versions: dict) -> None:
    response = client.get("/versions/14/", HTTP_ACCEPT_LANGUAGE="en")

    page = response.content.decode()
    assert response.status_code == 200 and "<h1>PostgreSQL 14</h1>" in page
    assert rows(page) == [
        "2021 2021年度WG1活動報告 published official PostgreSQL 14.0 median 412.94 —",
        "2023 smoke measured here not official PostgreSQL 14.3 median 500.00 900.00",
    ]
    assert "13.4" not in "".join(rows(page)) and "更新系" in page
    assert 'href="/versions/14.0/">14.0</a>' in page and 'href="/versions/14.3/">14.3</a>' in page


def test_a_minor_shows_its_own_figures_and_links_to_its_major(client, versions: dict) -> None:
    page = client.get("/versions/14.3/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert rows(page) == ["2023 smoke measured here not official PostgreSQL 14.3 median 500.00 900.00"]
    assert 'href="/versions/14/">All of 14</a>' in page


def test_a_version_without_figures_says_so_and_a_non_version_is_not_found(client, versions: dict) -> None:
    page = client.get("/versions/9.4/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No study has figures of PostgreSQL 9.4 yet." in page
    assert client.get("/versions/fourteen/").status_code == 404


def test_version_ranges_across_the_numbering_change() -> None:
    assert version_sort_range("14") == (140000, 149999)
    assert version_sort_range("14.3") == (140003, 140003)
    assert version_sort_range("9.4") == (90400, 90499)
    assert version_sort_range("9.4.3") == (90403, 90403)


def test_every_place_that_names_a_build_or_version_links_to_its_page(client, versions: dict) -> None:
    measured, published = versions["measured"], versions["published"]
    published.official = True
    published.save()
    trial = measured.trials.first()
    pages = {
        "trend table": (reverse("trends:index"), ['href="/versions/14/">14</a>', 'href="/versions/14.0/">14.0</a>']),
        "study page": (reverse("studies:detail", args=[measured.pk]), ['href="/versions/14.3/">PostgreSQL 14.3</a>']),
        "study list": (reverse("studies:list"), ['href="/versions/14.3/">14.3</a>']),
        "trial page": (reverse("studies:trial", args=[trial.pk]), ['href="/versions/14.3/">PostgreSQL 14.3</a>']),
        "build list": (reverse("inventory:builds"), ['href="/versions/14.3/">14.3</a>', 'href="/versions/14/">14</a>']),
    }  # fmt: skip
    for name, (url, links) in pages.items():
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        for link in links:
            assert link in page, (name, link)
