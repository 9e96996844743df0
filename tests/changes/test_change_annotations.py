"""A version-range event of every host (13 to 14) is a band over 13..14 on the trends index chart, on the chart of
the change's series, and listed on the card of a change between 13 and 14, not on one between 15 and 16; a host's
event is listed only on its host's changes; a date-range event is a band over the studies of a host series that ran
within it."""

from datetime import UTC, date, datetime

import pytest
from django.urls import reverse

from benchdash.changes.events import change_events
from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.changes.refresh import changes_refresh
from benchdash.inventory.models import Event, Host
from benchdash.studies.models import Study
from tests.changes.test_change_pages import figure, page
from tests.changes.test_changes_refresh import STEP, minor_series, official_index_with_a_step
from tests.factories import HostFactory, StudyFactory

pytestmark = pytest.mark.django_db

SCALE_CHANGE = "scale 100 from this run on"


@pytest.fixture
def scale_change() -> Event:
    return Event.objects.create(text=SCALE_CHANGE, link="https://example.org/scale", version_from="13", version_to="14")


def _bands(drawn: dict) -> list[tuple[float, float]]:
    return [(shape["x0"], shape["x1"]) for shape in drawn["layout"]["shapes"] if shape["type"] == "rect"]


def _labels(drawn: dict) -> list[tuple[str, str]]:
    return [(note["text"], note["hovertext"]) for note in drawn["layout"].get("annotations", []) if "hovertext" in note]


def test_the_trends_index_chart_draws_a_version_range_event_as_a_band_over_its_versions(client, member, scale_change):
    links = official_index_with_a_step()
    changes_refresh()
    scenario_id = ChangePoint.objects.get().scenario_id
    html = page(client, reverse("trends:index"))
    drawn = figure(html, f"index-{scenario_id}")
    versions = drawn["layout"]["xaxis"]["categoryarray"]
    assert _bands(drawn) == [(versions.index("13") - 0.5, versions.index("14") + 0.5)]
    # A short label over the band (24 characters at most), the whole text and the link in its hover.
    short = '<a href="https://example.org/scale">scale 100 from this run…</a>'
    assert _labels(drawn) == [(short, f"{SCALE_CHANGE}<br>https://example.org/scale")]
    # The curves of the studies of 13 or 14 carry it as a note; those of 15 and 16 do not.
    noted = {newer: _labels(figure(html, f"curves-{scenario_id}-{links[newer].pk}")) != [] for newer in ("14", "16")}
    assert noted == {"14": True, "16": False}


def test_a_change_between_13_and_14_lists_the_event_and_its_chart_draws_it(client, member, scale_change):
    official_index_with_a_step()
    changes_refresh()
    change = ChangePoint.objects.get()
    html = page(client, reverse("changes:detail", args=[change.pk]))
    assert SCALE_CHANGE in html.split('id="annotations"')[1]
    drawn = figure(html, "change-series")
    labels = drawn["layout"]["xaxis"]["categoryarray"]
    assert _bands(drawn) == [(labels.index("13") - 0.5, labels.index("14") + 0.5)]


def test_a_change_between_15_and_16_lists_no_event_of_13_to_14(client, member, scale_change):
    links = official_index_with_a_step()
    change = _trend_change(links["16"], "15", "16")
    html = page(client, reverse("changes:detail", args=[change.pk]))
    assert SCALE_CHANGE not in html
    assert "No annotation lies between the two sides" in html


def test_an_event_of_another_host_is_not_listed_on_a_change(scale_change):
    links = official_index_with_a_step()
    Event.objects.create(text="OS upgrade", host=HostFactory(name="elsewhere"), version_from="13")
    change = _trend_change(links["14"], "13", "14")
    assert [event.text for event in change_events(change)] == [SCALE_CHANGE]


def test_a_host_series_draws_a_date_range_event_over_the_studies_it_covers_and_lists_it_on_their_change(client, member):
    host = HostFactory(name="host-a")
    january, may = (_study_on(host, datetime(2024, month, 10, tzinfo=UTC)) for month in (1, 5))
    Event.objects.create(text="new disks", host=host, date_from=date(2024, 1, 1), date_to=date(2024, 3, 31))
    labels = [f"#{january.pk}", f"#{may.pk}"]
    change = ChangePoint.objects.create(
        series_key=f"host:{host.name}", series_kind=SeriesKind.HOST, series_title=host.name, before_label=labels[0],
        after_label=labels[1], before_study=january, after_study=may, mean_before=100.0, mean_after=90.0, size=-0.1,
        pvalue=0.001, series_labels=labels, series_values=[100.0, 90.0],
    )  # fmt: skip
    html = page(client, reverse("changes:detail", args=[change.pk]))
    assert _bands(figure(html, "change-series")) == [(-0.5, 0.5)]
    assert [event.text for event in change_events(change)] == ["new disks"]


def test_a_minor_series_draws_an_event_of_its_host_over_the_minors_it_covers(client, member):
    study = minor_series(STEP, status="done")
    Event.objects.create(text="kernel 6.1 from 17.3", host=study.db_host, version_from="17.3")
    Event.objects.create(text="OS upgrade elsewhere", host=HostFactory(name="elsewhere"), version_from="17.0")
    scenario_id = study.scenarios.get().pk
    drawn = figure(page(client, reverse("changes:minors", args=[study.pk])), f"minors-{scenario_id}")
    versions = drawn["layout"]["xaxis"]["categoryarray"]
    assert _bands(drawn) == [(versions.index("17.3") - 0.5, versions.index("17.4") + 0.5)]
    assert [text for text, _hover in _labels(drawn)] == ["kernel 6.1 from 17.3"]


def _study_on(host: Host, started: datetime) -> Study:
    study = StudyFactory(db_host=host, status="done")
    Study.objects.filter(pk=study.pk).update(started_at=started)
    study.refresh_from_db()
    return study


def _trend_change(study: Study, before: str, after: str) -> ChangePoint:
    builds = {build.major: build for build in study.builds.all()}
    return ChangePoint.objects.create(
        series_key=f"trend:{before}-{after}",
        series_kind=SeriesKind.TREND,
        series_title="index",
        scenario=study.scenarios.get(),
        before_label=before,
        after_label=after,
        before_study=study,
        after_study=study,
        before_build=builds[before],
        after_build=builds[after],
        mean_before=100.0,
        mean_after=80.0,
        size=-0.2,
        pvalue=0.0001,
        series_labels=[before, after],
        series_values=[100.0, 80.0],
    )
