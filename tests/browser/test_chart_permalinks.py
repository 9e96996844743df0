"""A chart's state is in its page's address (issue 43, point 2): a zoom is written there as z.<figure id>, the page's
own filters kept, and a fresh page opened at that address draws the chart at the same range."""

import time
from urllib.parse import parse_qs, urlparse

import pytest
from django.urls import reverse

from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_runs

pytestmark = pytest.mark.django_db(transaction=True)

CHART = "var chart = document.querySelector('[data-figure=\"chart-' + arguments[0] + '\"]');"
RANGES = CHART + "return chart && chart.layout ? [chart.layout.xaxis.range, chart.layout.yaxis.range] : null;"
# Plotly.relayout(chart, arguments[1]), as a zoom, a pan or a double click does.
RELAYOUT = CHART + "window.Plotly.relayout(chart, arguments[1]).then(arguments[arguments.length - 1]);"


def drawn_ranges(browser, scenario_id: int) -> list:
    deadline = time.monotonic() + 15
    while not (ranges := browser.execute_script(RANGES, scenario_id)):
        assert time.monotonic() < deadline, "the chart was not drawn"
        time.sleep(0.2)
    return ranges


@pytest.fixture
def study_page(live_server):
    scenario = ScenarioFactory(slug="reference")
    old, new = BuildFactory(version="16.4"), BuildFactory(version="17.0")
    study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, client_levels=[1, 4, 8])
    succeeded_runs(
        study, scenario, {(build, clients): [400.0 + clients] for build in (old, new) for clients in (1, 4, 8)}
    )
    return live_server.url + reverse("studies:detail", args=[study.pk]), scenario.pk


def test_a_zoomed_chart_opens_at_the_same_range_from_its_address(browser, study_page):
    url, scenario_id = study_page
    browser.get(url + "?perf_clients=8")
    drawn_ranges(browser, scenario_id)

    browser.execute_async_script(RELAYOUT, scenario_id, {"xaxis.range": [2, 6], "yaxis.range": [300, 500]})
    address = browser.current_url
    browser.get("about:blank")
    browser.get(address)

    query = parse_qs(urlparse(address).query)
    assert query[f"z.chart-{scenario_id}"] == ["2,6,300,500"]
    assert query["perf_clients"] == ["8"]  # the page's own filter is kept
    assert drawn_ranges(browser, scenario_id) == [[2, 6], [300, 500]]


def test_resetting_the_zoom_takes_it_out_of_the_address(browser, study_page):
    url, scenario_id = study_page
    browser.get(url + f"?z.chart-{scenario_id}=2,6,300,500")
    assert drawn_ranges(browser, scenario_id) == [[2, 6], [300, 500]]

    browser.execute_async_script(RELAYOUT, scenario_id, {"xaxis.autorange": True, "yaxis.autorange": True})

    assert "z.chart" not in browser.current_url
