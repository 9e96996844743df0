"""The live study page in a real browser: it keeps its stylesheet, progress bar and headings as trials finish."""

import time

import pytest
from django.urls import reverse

from benchdash.studies.models import Trial
from benchdash.studies.points import points_refresh
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
    wait_until(
        lambda: browser.execute_script("return document.querySelector('[data-live=finished]').textContent") == "0",
        what="the first poll",
    )
    finish(first, 400.0)
    wait_until(
        lambda: browser.execute_script("return document.querySelectorAll('.scenario-section').length") == 1,
        what="the results",
    )

    sheets = browser.execute_script("return Array.from(document.styleSheets).map(s => s.href || '')")
    bar_height = browser.execute_script("return getComputedStyle(document.querySelector('.progress')).height")
    headings = browser.execute_script("return Array.from(document.querySelectorAll('h1')).map(h => h.textContent)")
    assert any(sheet.endswith("queue.css") for sheet in sheets), sheets
    assert bar_height != "auto" and float(bar_height.rstrip("px")) > 5
    assert headings == [f"{study.year} {study.title}"]
