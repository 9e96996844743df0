"""plotly's own words on a Japanese page: the toolbar's tooltips come from plotly's Japanese locale, Pan (移動) no
longer named as Zoom in (拡大)."""

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
    ("language", "words"),
    [("ja", ["軸をリセット", "自動ズーム", "移動", "拡大"]), ("en", ["Reset axes", "Autoscale", "Pan", "Zoom in"])],
)
def test_the_chart_toolbar_speaks_the_pages_language(live_server, browser, language, words) -> None:
    scenario = ScenarioFactory(slug="reference")
    build = BuildFactory(version="15.0")
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build)
    TrialFactory(study=study, build=build, scenario=scenario, status=Trial.Status.SUCCEEDED, tps=400.0)
    browser.get(live_server.url + "/accounts/login/")
    browser.add_cookie({"name": "django_language", "value": language, "path": "/"})

    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))

    titles = tooltips(browser)
    assert [word for word in words if word in titles] == words, titles
