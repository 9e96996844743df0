"""Served as in production: gunicorn (deploy/gunicorn.conf.py) with DEBUG off. Pages come with their stylesheets,
scripts and plotly.js (whitenoise), a missing page is the site's own 404, and raw files only come through the
access-checked view, never from /media/."""

import re
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from benchdash.studies.models import Artifact, Study, Trial
from benchdash.studies.results.store import points_refresh
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory
from tests.queue.support import wait_for

pytestmark = pytest.mark.slow

STATIC_SOURCE = Path(__file__).resolve().parents[2] / "static"


@pytest.fixture
def measured_study() -> Study:
    """Two builds at two client levels, one run each: one chart of two lines."""
    scenario = ScenarioFactory(slug="pgbench-select-only", name="Select only")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    study = StudyFactory(title="served", year=2025, builds=[old, new], scenarios=[scenario], baseline=old)
    for build, clients, tps in [(old, 1, 100.0), (old, 2, 190.0), (new, 1, 110.0), (new, 2, 230.0)]:
        TrialFactory(study=study, build=build, scenario=scenario, clients=clients, status="succeeded", tps=tps)
    points_refresh(study_id=study.pk)
    return study


HASHED_NAME = re.compile(r"\.[0-9a-f]{12}(\.\w+)$")  # site.0123456789ab.css, as collectstatic names it


def plain_name(asset: str) -> str:
    return HASHED_NAME.sub(r"\1", asset)


def linked_assets(html: str) -> list[str]:
    return re.findall(r'<link rel="stylesheet" href="([^"]+)"', html) + re.findall(r'<script src="([^"]+)"', html)


def test_a_study_page_comes_with_its_stylesheets_scripts_and_plotly(gunicorn, measured_study):
    server = gunicorn()

    page = server.get(reverse("studies:detail", args=[measured_study.pk]), Accept_Language="en")

    assert page.status == 200
    assert "<h1>served" in page.text or "served</h1>" in page.text
    assets = linked_assets(page.text)
    assert {"/static/css/site.css", "/static/vendor/plotly-scatter-bar.min.js", "/static/js/charts.js"} <= set(
        map(plain_name, assets)
    )
    assert all(HASHED_NAME.search(asset) for asset in assets), assets  # hashed: a new version is a new name
    for asset in assets:
        answer = server.get(asset)
        assert answer.status == 200, asset
        assert answer.body == (STATIC_SOURCE / plain_name(asset).removeprefix("/static/")).read_bytes(), asset
        expected_type = "text/css" if asset.endswith(".css") else "text/javascript"
        assert answer.headers["content-type"].startswith(expected_type), asset


def test_plotly_goes_compressed_and_cached_for_good_to_a_browser_that_takes_gzip(gunicorn):
    server = gunicorn()
    plotly = next(asset for asset in linked_assets(server.get("/").text) if "plotly" in asset)

    answer = server.get(plotly, Accept_Encoding="gzip")

    assert answer.status == 200
    assert answer.headers["content-encoding"] == "gzip"
    assert len(answer.body) < (STATIC_SOURCE / plain_name(plotly).removeprefix("/static/")).stat().st_size / 2
    cache = answer.headers["cache-control"]
    assert "immutable" in cache and int(re.search(r"max-age=(\d+)", cache)[1]) >= 365 * 24 * 3600, cache


@pytest.mark.parametrize(
    ("language", "heading", "navigation"),
    [("en", "Page not found", "Studies</a>"), ("ja", "ページが見つかりません", "検証</a>")],
)
def test_a_missing_page_is_the_site_s_404_in_the_visitor_s_language(gunicorn, language, heading, navigation):
    server = gunicorn()

    answer = server.get("/no-such-page/", Accept_Language=language)

    assert answer.status == 404
    assert f"<h1>{heading}</h1>" in answer.text
    assert navigation in answer.text
    assert re.search(r'href="/static/css/site\.[0-9a-f]{12}\.css"', answer.text)
    assert "URLconf" not in answer.text  # never Django's debug page


def test_raw_files_come_through_the_checked_view_and_never_from_media(gunicorn, settings, client, django_user_model):
    # the member's session is made here: the server reads it with the same key
    server = gunicorn(BENCHDASH_PUBLIC_READ="false", SECRET_KEY=settings.SECRET_KEY)
    settings.MEDIA_ROOT = Path(server.env["BENCHDASH_VAR_DIR"]) / "media"  # where the server keeps raw files
    artifact = Artifact(trial=TrialFactory(status=Trial.Status.SUCCEEDED, tps=1.0), kind="pgbench_stdout", size=9)
    artifact.file.save("trial-1-pgbench_stdout.txt", ContentFile(b"tps = 1\n"))
    assert (settings.MEDIA_ROOT / artifact.file.name).exists()
    client.force_login(django_user_model.objects.create_user("member"))
    member = {"Cookie": f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"}
    download = reverse("studies:artifact", args=[artifact.pk])

    anonymous = server.get(download)
    from_media = server.get(f"/media/{artifact.file.name}")
    from_media_as_member = server.get(f"/media/{artifact.file.name}", **member)
    as_member = server.get(download, **member)

    assert anonymous.status == 302 and "login" in anonymous.headers["location"]
    assert b"tps = 1" not in anonymous.body
    assert from_media.status == from_media_as_member.status == 404
    assert b"tps = 1" not in from_media.body + from_media_as_member.body
    assert as_member.status == 200 and as_member.body == b"tps = 1\n"
    assert as_member.headers["content-disposition"].startswith("attachment;")


def test_in_a_browser_the_page_is_styled_and_draws_its_chart(gunicorn, measured_study, chromium_session, tmp_path):
    server = gunicorn()
    browser = chromium_session

    browser.get(server.url + reverse("studies:detail", args=[measured_study.pk]))
    try:
        wait_for(
            lambda: browser.execute_script("return document.querySelectorAll('.js-plotly-plot .main-svg').length"),
            30,
            "plotly to draw the chart",
        )
        header = browser.execute_script(
            "return getComputedStyle(document.querySelector('.site-header')).backgroundColor"
        )
        lines = browser.execute_script("return document.querySelector('.js-plotly-plot').data.length")
        browser.execute_script("document.querySelector('.js-plotly-plot').scrollIntoView()")
        browser.save_screenshot(str(tmp_path / "study-page.png"))  # to look at: pytest --basetemp
    finally:
        browser.get("about:blank")

    assert header == "rgb(29, 79, 145)"  # site.css's --accent: the stylesheet came
    assert lines == 2  # a line per build
