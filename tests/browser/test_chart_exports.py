"""Every chart's export (issue 23, point 2): a 16:9 image whose title names the scenario and the study (or the
trend) and the unit, with a legend that is not clipped, however long a build's name."""

import base64
import io
import os
import time

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db(transaction=True)

LONG_NAME = "PostgreSQL 15.20 installed from the Debian packages (bookworm)"

# Draws a chart's export figure in an off-screen 1600 x 900 box and measures what plotly drew there.
MEASURE_EXPORT = """
var done = arguments[arguments.length - 1];
var chart = document.querySelectorAll('.js-plotly-plot')[arguments[0]];
var figure = window.benchdashCharts.exportFigure(chart);
var box = document.createElement('div');
box.style.cssText = 'position:absolute;left:0;top:0;width:1600px;height:900px';
document.body.appendChild(box);
window.Plotly.newPlot(box, figure.data, figure.layout, {staticPlot: true}).then(function () {
  var legend = box.querySelector('.legend');
  var texts = Array.from(box.querySelectorAll('.legend .legendtext'));
  var boxRight = box.getBoundingClientRect().right;
  done({
    title: figure.layout.title.text, width: figure.layout.width, height: figure.layout.height,
    legendRight: legend ? legend.getBoundingClientRect().right : 0,
    textsRight: Math.max.apply(null, texts.map(function (t) { return t.getBoundingClientRect().right; })),
    names: texts.map(function (t) { return t.textContent; }),
    boxRight: boxRight,
  });
});
"""


def _measure(browser, number: int = 0) -> dict:
    deadline = time.monotonic() + 15
    while browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length") <= number:
        assert time.monotonic() < deadline, "the charts were not drawn"
        time.sleep(0.2)
    return browser.execute_async_script(MEASURE_EXPORT, number)


def test_a_study_chart_exports_with_scenario_study_and_unit_and_its_whole_legend(live_server, browser):
    scenario = ScenarioFactory(slug="reference", name="Reference")
    old, new = BuildFactory(version="13.4", name="PostgreSQL 13.4"), BuildFactory(version="15.20", name=LONG_NAME)
    study = StudyFactory(title="long names", year=2024, builds=[old, new], scenarios=[scenario], baseline=old)
    for build, tps in ((old, 400.0), (new, 420.0)):
        TrialFactory(study=study, build=build, scenario=scenario, clients=1, status=Trial.Status.SUCCEEDED, tps=tps)

    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    export = _measure(browser)

    assert export["title"] == "Reference · 2024 long names · TPS (median)"
    assert (export["width"], export["height"]) == (1600, 900)
    assert LONG_NAME in export["names"]
    assert export["textsRight"] <= export["boxRight"]  # the longest name ends inside the image
    if os.environ.get("BENCHDASH_KEEP_EXPORT"):  # to look at it: the PNG the camera button gives
        png = browser.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "window.benchdashCharts.exportImage(document.querySelector('.js-plotly-plot'), 'png').then(done);"
        )
        with open(os.environ["BENCHDASH_KEEP_EXPORT"], "wb") as kept:
            kept.write(base64.b64decode(png.split(",", 1)[1]))


def test_the_home_page_exports_name_the_trend_or_the_study_and_the_unit(live_server, browser):
    call_command("load_presets", stdout=io.StringIO())

    browser.get(live_server.url + reverse("trends:index"))
    index = _measure(browser, 0)
    curves = _measure(browser, 1)

    assert index["title"].startswith("Version index across studies · ")
    assert index["title"].endswith(" · index (oldest version = 100)")
    assert curves["title"].startswith("pgbench built-in TPC-B (sort of) · 2018 EDB Japan")
    assert curves["title"].endswith(" · relative (baseline = 100)")  # the unit: this study published ratios
    assert index["textsRight"] <= index["boxRight"] and curves["textsRight"] <= curves["boxRight"]
