"""A missing page (404) and a server error (500) answer with the site's own page: its navigation and styles, in the
visitor's language, and nothing of the debug page."""

import re

import pytest
from django.test import RequestFactory
from django.utils import translation

from benchdash.errors import server_error

NAVIGATION = {
    "en": ["Trends", "Studies", "Changes", "Hosts", "Builds"],
    "ja": ["推移", "検証", "変化", "ホスト", "ビルド"],
}
TEXTS = {
    ("en", 404): ("Page not found", "There is no page at /studies/no-such-page/."),
    ("ja", 404): ("ページが見つかりません", "/studies/no-such-page/ というページはありません。"),
    ("en", 500): ("Server error", "Something went wrong on the server while answering this page."),
    ("ja", 500): ("サーバエラー", "このページの処理中にサーバでエラーが起きました。"),
}


def nav(html: str) -> list[str]:
    block = re.search(r'<nav class="site-nav".*?</nav>', html, re.S).group(0)
    return re.findall(r">([^<>]+)</a>", block)


def assert_site_page(html: str, language: str, status: int) -> None:
    heading, text = TEXTS[language, status]
    assert f'<html lang="{language}">' in html
    assert f"<h1>{heading}</h1>" in html
    assert text in html
    assert nav(html) == NAVIGATION[language]
    assert "/static/css/site.css" in html
    assert "Traceback" not in html and "URLconf" not in html


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_missing_page_answers_404_with_the_site_s_page(client, settings, language):
    settings.DEBUG = False

    response = client.get("/studies/no-such-page/", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 404
    assert_site_page(response.content.decode(), language, 404)


@pytest.mark.django_db
@pytest.mark.urls("tests.pages.broken_urls")
@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_failing_page_answers_500_with_the_site_s_page(client, settings, language):
    settings.DEBUG = False
    client.raise_request_exception = False

    response = client.get("/broken/", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 500
    html = response.content.decode()
    assert_site_page(html, language, 500)
    assert "a bug in a view" not in html
    assert 'name="csrfmiddlewaretoken"' in html  # the language switcher still posts


def test_the_500_page_asks_nothing_of_the_store_which_may_be_what_failed():
    """No django_db mark: pytest-django refuses any query here, so rendering it touched no database."""
    request = RequestFactory().get("/studies/1/")

    with translation.override("en"):
        response = server_error(request)

    assert response.status_code == 500
    assert "<h1>Server error</h1>" in response.content.decode()
