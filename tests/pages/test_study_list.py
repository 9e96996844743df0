"""The study list: newest year first, then by title; filters by scenario, version, trends (official) and kind."""

import re

import pytest
from django.urls import reverse

from benchdash.studies.models import Study
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory

pytestmark = pytest.mark.django_db


def titles(client, **params: str) -> list[str]:
    page = client.get(reverse("studies:list"), params, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.S).group(1)
    return re.findall(r'<a href="/studies/\d+/">([^<]+)</a>', body)


@pytest.fixture
def studies():
    reference, update = ScenarioFactory(slug="pgecons-reference"), ScenarioFactory(slug="pgecons-update")
    v13, v1323, v14 = BuildFactory(version="13.4"), BuildFactory(version="13.23"), BuildFactory(version="14.0")
    v94 = BuildFactory(version="9.4.3")
    StudyFactory(title="beta", year=2025, builds=[v1323, v14], scenarios=[update], status=Study.Status.DONE)
    StudyFactory(title="alpha", year=2025, builds=[v14], scenarios=[reference], official=True)
    StudyFactory(title="zulu", year=2021, builds=[v13, v14], scenarios=[reference], kind=Study.Kind.PUBLISHED)
    StudyFactory(title="mike", year=2026, builds=[v94], scenarios=[update], kind=Study.Kind.PUBLISHED, official=False)


def test_it_lists_the_newest_year_first_then_by_title(client, studies):
    assert titles(client) == ["mike", "alpha", "beta", "zulu"]


def test_it_filters_by_scenario(client, studies):
    assert titles(client, scenario="pgecons-update") == ["mike", "beta"]


def test_it_filters_by_major_version_whatever_the_minor(client, studies):
    assert titles(client, version="13") == ["beta", "zulu"]
    assert titles(client, version="9.4") == ["mike"]


def test_it_filters_by_whether_a_study_counts_in_the_trends(client, studies):
    assert titles(client, trends="official") == ["alpha", "zulu"]
    assert titles(client, trends="unofficial") == ["mike", "beta"]


def test_it_filters_by_kind_and_combines_filters(client, studies):
    assert titles(client, kind="measured") == ["alpha", "beta"]
    assert titles(client, kind="published", trends="official") == ["zulu"]


def test_an_unknown_filter_value_shows_every_study(client, studies):
    assert titles(client, version="99") == ["mike", "alpha", "beta", "zulu"]


def test_the_filters_offer_the_scenarios_and_majors_studied(client, studies):
    page = client.get(reverse("studies:list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    versions = re.search(r'<select name="version"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert re.findall(r'<option value="([^"]*)"', versions) == ["", "9.4", "13", "14"]
    assert '<option value="pgecons-update">' in page
