"""plotly's own words on a Japanese page: the toolbar's tooltips come from plotly's Japanese locale."""

import time

import pytest
from django.urls import reverse

from benchdash.studies.models import Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db(transaction=True)

TOOLTIPS = "return Array.from(document.querySelectorAll('.modebar-btn')).map(function (b) { return b.dataset.title; });"


def tooltips(browser) -> list[str]:
    deadline = time.monotonic() + 15
    while not (titles := browser.execute_script(TOOLTIPS)):
        assert time.monotonic() < deadline, "no chart toolbar was drawn"
        time.sleep(0.2)
    return titles


@pytest.mark.parametrize(
    ("language", "reset", "autoscale"), [("ja", "軸をリセット", "自動ズーム"), ("en", "Reset axes", "Autoscale")]
)
def test_the_chart_toolbar_speaks_the_pages_language(live_server, browser, language, reset, autoscale) -> None:
    scenario = ScenarioFactory(slug="reference")
    build = BuildFactory(version="15.0")
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build)
    TrialFactory(study=study, build=build, scenario=scenario, status=Trial.Status.SUCCEEDED, tps=400.0)
    browser.get(live_server.url + "/accounts/login/")
    browser.add_cookie({"name": "django_language", "value": language, "path": "/"})

    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))

    titles = tooltips(browser)
    assert reset in titles and autoscale in titles, titles
