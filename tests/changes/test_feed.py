"""The Atom feed of new official changes is valid by RFC 4287 (every MUST of atom:feed and atom:entry, checked on the
parsed XML, with entries and without), and the home, trends and changes pages link to it for autodiscovery."""

import re
from datetime import datetime
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from benchdash.changes.models import ChangePoint
from benchdash.changes.refresh import changes_refresh
from tests.changes.test_change_pages import page
from tests.changes.test_changes_refresh import STEP, minor_series

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def official_change() -> ChangePoint:
    minor_series(STEP, official=True, status="done")
    changes_refresh()
    return ChangePoint.objects.get()


def parsed_feed(client) -> ElementTree.Element:
    return ElementTree.fromstring(page(client, reverse("changes:feed")).encode())  # noqa: S314 (our own feed)


def one(element: ElementTree.Element, name: str) -> ElementTree.Element:
    found = element.findall(ATOM + name)
    assert len(found) == 1, f"{element.tag} has {len(found)} atom:{name}"
    return found[0]


def assert_date(element: ElementTree.Element) -> None:
    """RFC 3339 with a time zone, as section 3.3 asks."""
    assert datetime.fromisoformat(element.text or "").tzinfo is not None


def assert_absolute_iri(element: ElementTree.Element) -> None:
    assert re.match(r"^[a-z][a-z0-9+.-]*:", element.text or ""), element.text


def test_the_feed_has_every_element_rfc_4287_requires_of_a_feed_and_its_entries(client, member, official_change):
    feed = parsed_feed(client)
    assert feed.tag == ATOM + "feed"
    assert_absolute_iri(one(feed, "id"))
    assert one(feed, "title").text == "benchdash: new changes in official series"
    assert_date(one(feed, "updated"))
    assert one(one(feed, "author"), "name").text == "benchdash"
    links = {(link.get("rel") or "alternate"): link.get("href") for link in feed.findall(ATOM + "link")}
    assert links["alternate"].endswith(reverse("changes:list"))
    assert links["self"].endswith(reverse("changes:feed"))
    [entry] = feed.findall(ATOM + "entry")
    assert_absolute_iri(one(entry, "id"))
    assert "17.2 → 17.3 -8.0%" in one(entry, "title").text
    assert_date(one(entry, "updated"))
    [alternate] = [link for link in entry.findall(ATOM + "link") if link.get("rel", "alternate") == "alternate"]
    assert alternate.get("href").endswith(reverse("changes:detail", args=[official_change.pk]))


def test_an_empty_feed_is_valid_too(client, member):
    assert not ChangePoint.objects.exists()
    feed = parsed_feed(client)
    for name in ("id", "title", "updated"):
        one(feed, name)
    one(feed, "author")
    assert feed.findall(ATOM + "entry") == []


@pytest.mark.parametrize("name", ["trends:index", "changes:list", "studies:list"])
def test_pages_link_to_the_feed_for_autodiscovery(client, member, name):
    html = page(client, reverse(name))
    title = "benchdash: new changes in official series"
    assert (
        f'<link rel="alternate" type="application/atom+xml" title="{title}" href="{reverse("changes:feed")}">' in html
    )
