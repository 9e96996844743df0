"""A study's charts show the events that touch it (its DB host or every host; its day or its builds' versions) as a
note above the plot: an event on host A from January to March 2024 is on a study of host A in February 2024, and
not on host B's, nor on host A's in April; the study's report draws the same."""

from datetime import UTC, date, datetime

import pytest
from django.urls import reverse

from benchdash.inventory.models import Event
from benchdash.studies.models import Study
from tests.changes.test_change_pages import figure, page
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs

pytestmark = pytest.mark.django_db

NEW_SERVER = "new server for the yearly run"


def _study_on(host_name: str, started: datetime) -> Study:
    scenario, build = ScenarioFactory(), BuildFactory(version="16.2")
    host = HostFactory(name=host_name)
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build, status="done", db_host=host)
    Study.objects.filter(pk=study.pk).update(started_at=started)
    succeeded_runs(study, scenario, {(build, 1): [500.0], (build, 2): [900.0]})
    return study


def _notes(client, study: Study, view: str = "studies:detail", prefix: str = "chart") -> list[dict]:
    html = page(client, reverse(view, args=[study.pk]))
    scenario_id = study.scenarios.get().pk
    return figure(html, f"{prefix}-{scenario_id}")["layout"].get("annotations", [])


@pytest.fixture
def new_server_on_a() -> Event:
    host = HostFactory(name="host-a")
    return Event.objects.create(
        text=NEW_SERVER,
        link="https://example.org/run",
        host=host,
        date_from=date(2024, 1, 1),
        date_to=date(2024, 3, 31),
    )


def test_an_event_on_host_a_is_noted_on_host_a_s_study_of_february_and_not_on_host_b_s(client, member, new_server_on_a):
    on_a = _study_on("host-a", datetime(2024, 2, 10, 9, tzinfo=UTC))
    on_b = _study_on("host-b", datetime(2024, 2, 10, 9, tzinfo=UTC))
    [note] = _notes(client, on_a)
    assert note["text"] == f"annotation: {NEW_SERVER}"
    assert note["hovertext"] == f"{NEW_SERVER}<br>https://example.org/run"
    assert (note["xref"], note["yref"], note["y"]) == ("paper", "paper", 1)
    assert _notes(client, on_b) == []
    assert _notes(client, on_a, "studies:report", "report-chart") == [note]


def test_an_event_is_not_noted_on_a_study_of_its_host_after_its_range(client, member, new_server_on_a):
    april = _study_on("host-a", datetime(2024, 4, 2, 9, tzinfo=UTC))
    assert _notes(client, april) == []


def test_an_event_of_every_host_by_version_is_noted_on_a_study_of_that_version(client, member):
    Event.objects.create(text="scale 100 from 16", version_from="16")
    study = _study_on("host-b", datetime(2024, 2, 10, 9, tzinfo=UTC))
    assert [note["text"] for note in _notes(client, study)] == ["annotation: scale 100 from 16"]
