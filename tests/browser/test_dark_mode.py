"""The system's dark setting darkens the pages and restyles their charts, redrawn when the setting changes; an
exported chart stays light, for a report's paper."""

import time

import pytest
from django.urls import reverse

from benchdash.studies.models import Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db(transaction=True)

COLOURS = """
var chart = document.querySelector('.js-plotly-plot');
var exported = window.benchdashCharts.exportFigure(chart).layout;
return {
  page: getComputedStyle(document.documentElement).backgroundColor,
  paper: chart._fullLayout.paper_bgcolor, text: chart._fullLayout.font.color, grid: chart._fullLayout.yaxis.gridcolor,
  exported: [exported.paper_bgcolor, exported.font.color, exported.yaxis.gridcolor],
};
"""


def prefer(browser, scheme: str) -> None:
    features = [{"name": "prefers-color-scheme", "value": scheme}] if scheme else []
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})


def colours_once_drawn(browser, paper: str) -> dict:
    deadline = time.monotonic() + 15
    while True:
        if browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length"):
            colours = browser.execute_script(COLOURS)
            if colours["paper"] == paper:
                return colours
        assert time.monotonic() < deadline, "the chart was not drawn in the expected colours"
        time.sleep(0.2)


def test_a_dark_system_darkens_page_and_chart_and_back_while_exports_stay_light(live_server, browser):
    scenario = ScenarioFactory(slug="reference", name="Reference")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="15.20")
    study = StudyFactory(title="dark", year=2024, builds=[old, new], scenarios=[scenario], baseline=old)
    for build, tps in ((old, 400.0), (new, 420.0)):
        TrialFactory(study=study, build=build, scenario=scenario, clients=1, status=Trial.Status.SUCCEEDED, tps=tps)
    light_export = ["#fff", "#444", "#eee"]
    prefer(browser, "dark")
    try:
        browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
        dark = colours_once_drawn(browser, "rgba(0, 0, 0, 0)")
        prefer(browser, "light")
        light = colours_once_drawn(browser, "#fff")
    finally:
        prefer(browser, "")
    assert dark == {"page": "rgb(19, 26, 33)", "paper": "rgba(0, 0, 0, 0)", "text": "#e4e7eb", "grid": "#3e4c59",
                    "exported": light_export}  # fmt: skip
    assert light == {"page": "rgb(245, 247, 250)", "paper": "#fff", "text": "#444", "grid": "rgb(238, 238, 238)",
                     "exported": light_export}  # fmt: skip
