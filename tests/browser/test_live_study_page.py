"""The study page in a real browser: the live panel keeps the stylesheets, progress bar and headings as trials
finish, the title badge follows the status; charts offer no logo and no cloud, and export a 16:9 image with
the title, the study, the host and the source."""

import time

import pytest
from django.urls import reverse
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.store import points_refresh
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db(transaction=True)


def wait_until(predicate, timeout: float = 15.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def finish(trial: Trial, tps: float) -> None:
    Trial.objects.filter(pk=trial.pk).update(status=Trial.Status.SUCCEEDED, tps=tps)
    points_refresh(study_id=trial.study_id)


def test_the_page_keeps_its_stylesheet_bar_and_headings_after_the_first_trial_finishes(live_server, browser):
    scenario = ScenarioFactory(slug="pgbench-select-only")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    study = StudyFactory(title="live", builds=[old, new], scenarios=[scenario], baseline=old, status="running")
    first = TrialFactory(study=study, build=old, scenario=scenario, clients=1, status=Trial.Status.RUNNING)
    TrialFactory(study=study, build=new, scenario=scenario, clients=1)

    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    wait_until(lambda: current_trial(browser).startswith("#"), what="the first poll")
    finish(first, 400.0)
    wait_until(lambda: result_sections(browser) == 1, what="the results")

    sheets = browser.execute_script("return Array.from(document.styleSheets).map(s => s.href || '')")
    bar_height = browser.execute_script("return getComputedStyle(document.querySelector('.progress')).height")
    headings = browser.execute_script("return Array.from(document.querySelectorAll('h1')).map(h => h.textContent)")
    assert any(sheet.endswith("queue.css") for sheet in sheets), sheets
    assert bar_height != "auto" and float(bar_height.rstrip("px")) > 5
    assert headings == [f"{study.year} {study.title}"]
    assert browser.execute_script("return document.querySelectorAll('.scenario-section .js-plotly-plot').length") == 1


def test_a_trial_that_finishes_before_the_first_poll_still_brings_its_results(live_server, browser):
    study, first = running_study_of_two_trials("race")
    progress_url = reverse("studies:progress", args=[study.pk])

    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [f"*{progress_url}*"]})
    try:
        browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
        assert result_sections(browser) == 0
        finish(first, 400.0)
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})

    wait_until(lambda: result_sections(browser) == 1, what="the results")
    assert browser.execute_script("return document.querySelector('[data-live=finished]').textContent") == "1"


def running_study_of_two_trials(title: str) -> tuple[Study, Trial]:
    """One build, one scenario, 1 and 2 clients: the first trial running, the second pending."""
    scenario = ScenarioFactory(slug="pgbench-select-only")
    build = BuildFactory(version="15.0")
    study = StudyFactory(title=title, builds=[build], scenarios=[scenario], baseline=build, status="running")
    first = TrialFactory(study=study, build=build, scenario=scenario, clients=1, status=Trial.Status.RUNNING)
    TrialFactory(study=study, build=build, scenario=scenario, clients=2)
    return study, first


def current_trial(browser) -> str:
    return browser.execute_script("return document.querySelector('[data-live=current]').textContent")


def result_sections(browser) -> int:
    return browser.execute_script("return document.querySelectorAll('.scenario-section').length")


def test_the_title_badge_follows_the_status_and_a_cancelled_study_shows_what_it_has(live_server, browser):
    study, first = running_study_of_two_trials("cancel me")

    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    wait_until(lambda: badge(browser) == "running", what="the first poll")
    finish(first, 321.0)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CANCELLED)
    Trial.objects.filter(study=study, status=Trial.Status.PENDING).update(status=Trial.Status.CANCELLED)

    wait_until(lambda: badge(browser) == "cancelled", what="the badge to follow")
    wait_until(
        lambda: (
            "321"
            in browser.execute_script(
                "var t = document.querySelector('table.comparison'); return t ? t.textContent : ''"
            )
        ),
        what="the results",
    )
    assert browser.execute_script("return document.querySelector('[data-study-status]').className") == "badge cancelled"


def badge(browser) -> str:
    return browser.execute_script("var b = document.querySelector('[data-study-status]'); return b && b.textContent")


def test_no_chart_offers_a_logo_or_the_cloud_and_the_export_carries_title_study_host_and_source(live_server, browser):
    scenario = ScenarioFactory(slug="pgbench-select-only")
    build = BuildFactory(version="15.0")
    study = StudyFactory(title="export check", builds=[build], scenarios=[scenario], baseline=build, status="done")
    TrialFactory(study=study, build=build, scenario=scenario, clients=1, status=Trial.Status.SUCCEEDED, tps=250.0)

    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    wait_until(
        lambda: browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length") >= 1,
        what="the chart",
    )

    buttons = browser.execute_script(
        "return Array.from(document.querySelectorAll('.modebar-btn')).map(b => b.getAttribute('data-title'))"
    )
    assert (
        browser.execute_script("return document.querySelectorAll('.modebar-btn--logo, a[href*=\"plotly.com\"]').length")
        == 0
    )
    assert not [title for title in buttons if "Share" in title or "Cloud" in title or "Chart Studio" in title]
    assert "Download SVG (16:9, with title and source)" in buttons
    svg = browser.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "var chart = document.querySelector('.js-plotly-plot');"
        "window.benchdashCharts.exportImage(chart, 'svg').then(url => done(decodeURIComponent(url)));"
    )
    assert 'width="1600"' in svg and 'height="900"' in svg
    assert "export check" in svg and "DB host: local" in svg and f"/studies/{study.pk}/" in svg


POLL_S = 2.0  # study_live.js polls every 2 s: "within one poll" allows one poll and the time to draw it


def running_badges(browser) -> int:
    return browser.execute_script("return document.querySelectorAll('table .badge.running').length")


def test_a_cancel_shows_within_one_poll_and_the_panel_follows_the_trial_until_it_stops(live_server, browser):
    study, first = running_study_of_two_trials("cancelled while running")
    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    wait_until(lambda: current_trial(browser).startswith("#"), what="the first poll")

    Study.objects.filter(pk=study.pk).update(status=Study.Status.CANCELLED)  # its trial is still running

    wait_until(lambda: badge(browser) == "cancelled", timeout=POLL_S + 1.5, what="the cancel within one poll")
    assert current_trial(browser) == "none"
    Trial.objects.filter(pk=first.pk).update(status=Trial.Status.CANCELLED)  # the runner stopped it
    Trial.objects.filter(study=study, status=Trial.Status.PENDING).update(status=Trial.Status.CANCELLED)
    wait_until(lambda: running_badges(browser) == 0, timeout=2 * POLL_S + 3, what="the trial row to follow")


def test_a_failure_shows_within_one_poll_and_its_bar_is_red_not_green(live_server, browser):
    study, first = running_study_of_two_trials("fails")
    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    wait_until(lambda: current_trial(browser).startswith("#"), what="the first poll")

    Trial.objects.filter(study=study).update(status=Trial.Status.FAILED, error="pgbench: connection refused")
    Study.objects.filter(pk=study.pk).update(status=Study.Status.FAILED)

    wait_until(lambda: badge(browser) == "failed", timeout=POLL_S + 1.5, what="the failure within one poll")
    bar = "getComputedStyle(document.querySelector('[data-live=bar]'))"
    wait_until(lambda: browser.execute_script(f"return {bar}.width") != "0px", what="the full bar")
    assert browser.execute_script(f"return {bar}.backgroundColor") == "rgb(201, 42, 42)"
    assert "connection refused" in browser.execute_script(
        "return document.querySelector('[data-live=failure_reason]').textContent"
    )


def test_cancel_asks_for_confirmation_first(live_server, browser, client, member):
    study, _first = running_study_of_two_trials("asks first")
    browser.get(live_server.url + "/static/css/site.css")  # the cookie's domain, before the page
    browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value, "path": "/"})
    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    cancel = "document.querySelector('[data-live=cancel] button').click()"

    browser.execute_script(cancel)
    alert = browser.switch_to.alert
    assert alert.text == "Cancel this study? Its finished trials are kept; the running one is stopped."
    alert.dismiss()
    time.sleep(0.5)
    assert Study.objects.get(pk=study.pk).status == Study.Status.RUNNING

    browser.execute_script(cancel)
    browser.switch_to.alert.accept()
    wait_until(lambda: Study.objects.get(pk=study.pk).status == Study.Status.CANCELLED, what="the cancel")


def test_a_study_waiting_for_another_installation_says_so_within_one_poll(live_server, browser):
    study, first = running_study_of_two_trials("waits for staging")
    browser.get(live_server.url + reverse("studies:detail", args=[study.pk]))
    wait_until(lambda: current_trial(browser).startswith("#"), what="the first poll")

    other = "6f1d3a52-0000-4000-8000-00000000000b"
    Host.objects.filter(pk=study.db_host_id).update(busy_with=other, busy_since=timezone.now())
    Trial.objects.filter(pk=first.pk).update(status=Trial.Status.PENDING)  # given back: it waits for the host

    notice = "return document.querySelector('[data-live=waiting]').textContent"
    wait_until(lambda: other in browser.execute_script(notice), timeout=POLL_S + 1.5, what="the note within one poll")
    shown = browser.execute_script(notice)
    assert f"Host {study.db_host.name} busy with another benchdash installation ({other}) since" in shown
    assert "{" not in shown  # every placeholder filled
