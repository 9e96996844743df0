"""Japanese and English: the language follows the browser, can be switched on every page, and the .po is complete."""

import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories import HostFactory

JA_PO = Path(settings.BASE_DIR) / "locale" / "ja" / "LC_MESSAGES" / "django.po"


def heading(response) -> str:
    return re.search(r"<h1>(.*?)</h1>", response.content.decode()).group(1)


def nav(response) -> list[str]:
    block = re.search(r'<nav class="site-nav".*?</nav>', response.content.decode(), re.S).group(0)
    return re.findall(r">([^<>]+)</a>", block)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "headings"),
    [
        ("en", ["Trends across versions", "Studies", "Hosts", "Builds"]),
        ("ja", ["バージョン間の性能推移", "検証", "ホスト", "ビルド"]),
    ],
)
def test_the_headings_follow_the_browser_language(client, language, headings):
    urls = [reverse(name) for name in ("trends:index", "studies:list", "inventory:hosts", "inventory:builds")]
    responses = [client.get(url, HTTP_ACCEPT_LANGUAGE=language) for url in urls]
    assert [heading(response) for response in responses] == headings
    assert all(f'<html lang="{language}">' in response.content.decode() for response in responses)


@pytest.mark.django_db
def test_the_navigation_is_japanese_for_a_japanese_browser(client):
    response = client.get(reverse("studies:list"), HTTP_ACCEPT_LANGUAGE="ja")
    assert nav(response) == ["推移", "検証", "変化", "ホスト", "ビルド"]


@pytest.mark.django_db
def test_switching_the_language_sets_the_cookie_and_the_next_page_follows_it(client):
    host = HostFactory(name="aws-m5a")
    page = reverse("inventory:host_detail", args=[host.pk])
    before = client.get(page, HTTP_ACCEPT_LANGUAGE="ja")
    assert 'action="/i18n/setlang/"' in before.content.decode()
    response = client.post("/i18n/setlang/", {"language": "en", "next": page}, HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 302 and response["Location"] == page
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    after = client.get(page, HTTP_ACCEPT_LANGUAGE="ja")
    assert "<h2>Facts</h2>" in after.content.decode()
    assert nav(after) == ["Trends", "Studies", "Changes", "Hosts", "Builds"]


@pytest.mark.django_db
def test_every_page_carries_the_language_switcher(client):
    host = HostFactory(name="aws-m5a")
    urls = [
        reverse("trends:index"),
        reverse("studies:list"),
        reverse("inventory:hosts"),
        reverse("inventory:builds"),
        reverse("inventory:host_detail", args=[host.pk]),
    ]
    for url in urls:
        page = client.get(url).content.decode()
        assert '<option value="ja" selected>日本語</option>' in page
        assert '<option value="en">English</option>' in page


def test_the_japanese_catalogue_has_no_untranslated_or_fuzzy_message():
    result = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(JA_PO)], capture_output=True, text=True, check=True
    )
    assert re.fullmatch(r"\d+ translated messages\.\n", result.stderr), result.stderr


def test_the_committed_japanese_mo_is_compiled_from_the_po(tmp_path):
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(compiled), str(JA_PO)], check=True)
    assert JA_PO.with_suffix(".mo").read_bytes() == compiled.read_bytes()


def test_a_message_has_a_context_only_where_it_translates_otherwise_than_without_one():
    """One word, one translation: a context that changes nothing is a duplicate to keep in step by hand."""
    entries = re.findall(r'(?:msgctxt "([^"]*)"\n)?msgid "([^"]+)"\nmsgstr "([^"]*)"', JA_PO.read_text())
    plain = {msgid: msgstr for context, msgid, msgstr in entries if not context}
    needless = [(context, msgid) for context, msgid, msgstr in entries if context and plain.get(msgid) == msgstr]
    assert needless == []
