"""Every page in Japanese holds no English interface text: labels, engine notes and reasons, plotly's toolbar; and no
English word at all but units, names, code and what the store holds under a name (tests/pages/japanese_words.py)."""

import re

import pytest

from benchdash.inventory.models import Event
from tests.pages.japanese_words import allowed_words, english_words
from tests.site_pages import site_with_everything

# English that reached Japanese pages once (issue 23): each is interface text with a translation.
KNOWN_ENGLISH = [
    "perf: from an extra profiled run",
    "server left running for the next trial",
    "Pgbench ホスト",
    "Postgresql.conf",
    "Sar を",
    "Members: ",
]


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def site(member_roles: None):
    pages, member = site_with_everything()
    admin_pages = {"admin groups": "/admin/auth/group/", "admin member": f"/admin/auth/user/{member.pk}/change/"}
    admin_pages["admin annotation"] = f"/admin/inventory/event/{Event.objects.get().pk}/change/"
    return pages | admin_pages, member


def test_no_page_in_japanese_holds_known_english_interface_text(client, site) -> None:
    pages, member = site
    client.force_login(member)
    found = {}
    for name, url in pages.items():
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
        assert response.status_code == 200, (name, response.status_code)
        text = visible_text(response.content.decode())
        found[name] = [english for english in KNOWN_ENGLISH if english in text]
    assert found == {name: [] for name in pages}


def test_no_page_in_japanese_shows_an_english_word_but_units_names_code_and_stored_names(client, site) -> None:
    pages, member = site
    # The admin's permission names are Django's own, stored in English when its tables were made: not walked here.
    walked = {name: url for name, url in pages.items() if not name.startswith("admin ")}
    client.force_login(member)
    allowed = allowed_words()
    found = {}
    for name, url in walked.items():
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
        assert response.status_code == 200, (name, response.status_code)
        found[name] = sorted(english_words(response.content.decode()) - allowed)
    assert found == {name: [] for name in walked}
