"""Every page reads at 390, 768 and 1366 px without sideways scrolling (wide tables scroll inside their own box),
and the header takes one or two rows."""

import os
import time

import pytest

from tests.site_pages import site_with_everything

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = (1366, 768, 390)
# The header's rows: its links, buttons and fields grouped by their vertical centres (6 px apart or more: a new row).
HEADER_ROWS = """
var items = document.querySelectorAll('.site-header a, .site-header button, .site-header select');
var centres = Array.from(items).filter(function (item) { return item.offsetParent !== null; })
  .map(function (item) { var box = item.getBoundingClientRect(); return box.top + box.height / 2; })
  .sort(function (a, b) { return a - b; });
return centres.filter(function (centre, i) { return i === 0 || centre - centres[i - 1] >= 6; }).length;
"""
# clientWidth: the window less its vertical scroll bar, what the page may fill without a sideways scroll.
OVERFLOW = "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"


def log_in(browser, live_server, client, member) -> None:
    client.force_login(member)
    browser.get(live_server.url + "/accounts/login/")
    browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value, "path": "/"})


# After the window's size changed: each chart drawn again to its box's new width, as a page loaded at that width draws
# it (charts.js asks Plotly to follow the window, a moment later).
CHARTS_REDRAWN = """
var done = arguments[arguments.length - 1];
var charts = window.Plotly ? Array.from(document.querySelectorAll('.js-plotly-plot')) : [];
Promise.all(charts.map(function (chart) { return window.Plotly.Plots.resize(chart); }))
  .then(function () { done(''); }, function (error) { done(String(error)); });
"""


def test_every_page_fits_390_768_and_1366_px_with_a_header_of_at_most_two_rows(live_server, browser, client):
    pages, member = site_with_everything()
    log_in(browser, live_server, client, member)
    wrong = {}
    for name, url in pages.items():
        # Loaded once, at the first width, then the window resized: one load a page where there were three.
        browser.set_window_size(WIDTHS[0], 900)
        browser.get(live_server.url + url)
        for width in WIDTHS:
            if width != WIDTHS[0]:
                browser.set_window_size(width, 900)
                assert browser.execute_async_script(CHARTS_REDRAWN) == "", f"{name}: a chart was not drawn again"
            scroll_width, window_width = browser.execute_script(OVERFLOW)
            rows = browser.execute_script(HEADER_ROWS)
            if os.environ.get("BENCHDASH_SCREENSHOTS"):
                browser.save_screenshot(f"{os.environ['BENCHDASH_SCREENSHOTS']}/{name.replace(' ', '-')}-{width}.png")
            if scroll_width > window_width or rows > 2:
                wrong[f"{name} at {width}"] = f"{scroll_width} px wide in {window_width}, header of {rows} rows"
    assert wrong == {}, "\n".join(f"{where}: {what}" for where, what in wrong.items())


OPEN_FOUR = "document.querySelectorAll('.swagger-ui .opblock-summary-control').forEach((s, i) => i < 4 && s.click())"
OPENED = "return document.querySelectorAll('.swagger-ui .opblock.is-open .opblock-body').length"
# Elements reaching past the window's right edge, whether the page scrolls to them or cuts them off.
CUT_OFF = """
return Array.from(document.querySelectorAll('.swagger-ui .opblock.is-open *')).filter(function (e) {
  return e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !e.closest('pre, table');
}).slice(0, 5).map(function (e) { return e.className + ': ' + Math.round(e.getBoundingClientRect().right); });
"""


def test_the_api_docs_fit_390_px(live_server, browser):
    browser.set_window_size(390, 900)
    browser.get(live_server.url + "/api/v1/docs")
    deadline = time.monotonic() + 15
    while not browser.execute_script("return document.querySelectorAll('.swagger-ui .opblock').length"):
        assert time.monotonic() < deadline, "Swagger UI drew no operation"
        time.sleep(0.2)
    # Operations opened, as a reader opens them: their parameters, responses and examples are the wide parts (the
    # first four: every operation opened at once keeps a loaded machine's renderer busy past selenium's patience).
    browser.execute_script(OPEN_FOUR)
    while browser.execute_script(OPENED) < 4:
        assert time.monotonic() < deadline + 15, "the operations did not open"
        time.sleep(0.2)
    if os.environ.get("BENCHDASH_SCREENSHOTS"):
        browser.save_screenshot(f"{os.environ['BENCHDASH_SCREENSHOTS']}/api-docs-390.png")
    scroll_width, window_width = browser.execute_script(OVERFLOW)
    assert scroll_width <= window_width, f"{scroll_width} px wide in {window_width}"
    assert browser.execute_script(CUT_OFF) == []
