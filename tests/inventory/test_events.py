"""An event (an annotation) is marked once by an administrator: the admin refuses one without a range, with a range
that ends before it starts, with a version that does not parse or a link that is not http(s), and changes nothing;
the rule of inventory/events.py says which places an event touches."""

from datetime import date

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from benchdash.inventory.events import EventMark, Place, event_marks
from benchdash.inventory.models import Event
from tests.factories import HostFactory

pytestmark = pytest.mark.django_db

ADD = reverse("admin:inventory_event_add")
NOT_A_VERSION = "is not a PostgreSQL version (e.g. 13, 9.6, 14.3)."


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("admin", password="pw-admin-1"))
    return client


def _post(admin_client, **fields: str):
    form = {"text": "new server for the yearly run", "link": "", "host": "", "date_from": "", "date_to": ""}
    return admin_client.post(ADD, form | {"version_from": "", "version_to": ""} | fields, HTTP_ACCEPT_LANGUAGE="en")


def test_an_administrator_marks_an_event_once_and_it_records_who(admin_client):
    host = HostFactory(name="host-a")
    response = _post(admin_client, host=str(host.pk), date_from="2024-01-01", date_to="2024-03-31", version_from="13")
    assert response.status_code == 302
    event = Event.objects.get()
    assert (event.host, event.date_from, event.version_low) == (host, date(2024, 1, 1), 130000)
    assert event.created_by.username == "admin"
    assert event.scope() == "13 – … · 2024-01-01 – 2024-03-31 · host-a"


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({}, "__all__", "Give a date range or a version range (or both)."),
        ({"date_from": "2024-03-01", "date_to": "2024-01-01"}, "date_to", "The end date comes before the start date."),
        ({"version_from": "15", "version_to": "13"}, "version_to", "The end version comes before the start version."),
        ({"version_from": "fifteen"}, "version_from", f"'fifteen' {NOT_A_VERSION}"),
        (
            {"version_to": "13; rm -rf /"},
            "version_to",
            "'13; rm -rf /' is not a PostgreSQL version (e.g. 13, 9.6, 14.3).",
        ),
        ({"version_from": "13", "link": "javascript:alert(1)"}, "link", "Enter a valid URL."),
        ({"version_from": "13", "link": "ftp://example.org/notes"}, "link", "Enter a valid URL."),
    ],
)
def test_the_admin_refuses_a_bad_event_with_its_reason_and_saves_nothing(admin_client, fields, field, message):
    response = _post(admin_client, **fields)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert message in errors[field]
    assert not Event.objects.exists()


def test_a_minor_range_ends_at_that_minor_and_a_major_takes_in_all_its_minors():
    event = Event(text="t", version_from="9.6", version_to="14")
    assert (event.version_low, event.version_high) == (90600, 149999)
    assert (Event(text="t", version_to="14.3").version_high, Event(text="t", version_from="14.3").version_low) == (
        140003,
        140003,
    )


def test_an_event_touches_a_place_on_its_host_within_each_range_it_can_be_measured_on():
    host_event = EventMark(1, "new server", host_id=7, date_from=date(2024, 1, 1), date_to=date(2024, 3, 31))
    february = Place(frozenset({7}), ("16.2",), (date(2024, 2, 10),))
    assert host_event.touches(february)
    assert not host_event.touches(Place(frozenset({8}), ("16.2",), (date(2024, 2, 10),)))
    assert not host_event.touches(Place(frozenset({7}), ("16.2",), (date(2024, 4, 1),)))
    # A version axis without days: a date-only event has nothing to be measured on there.
    assert not host_event.touches(Place(frozenset({7}), ("16.2",)))
    both = EventMark(2, "scale 100 from 16", version_low=160000, date_from=date(2024, 1, 1))
    assert both.touches(february) and not both.touches(Place(frozenset({7}), ("15.4",), (date(2024, 2, 10),)))


def test_a_link_saved_past_the_admin_with_another_scheme_never_reaches_a_page():
    Event.objects.create(text="t", version_from="13", link="javascript:alert(1)")
    Event.objects.create(text="u", version_from="13", link="https://example.org/u")
    assert [mark.link for mark in event_marks()] == ["", "https://example.org/u"]
