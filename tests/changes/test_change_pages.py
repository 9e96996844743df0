"""The changes pages: one page lists every change with its series' chart; a member with the permission marks a
change known or noise (it stays listed, no longer new); new official changes are on the home page and in the
Atom feed; a minor series' page draws TPS per minor per client level with intervals."""

import json
import re

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.urls import reverse

from benchdash.changes.models import Acknowledgement, ChangePoint
from benchdash.changes.refresh import changes_refresh
from benchdash.changes.roles import acknowledgers_ensure
from tests.changes.test_changes_refresh import STEP, minor_series, official_index_with_a_step

pytestmark = pytest.mark.django_db


@pytest.fixture
def official_change() -> ChangePoint:
    minor_series(STEP, wobble=(-4.0, -2.0, 0.0, 2.0, 4.0), official=True, status="done", title="17.0..17.4")
    changes_refresh()
    return ChangePoint.objects.get()


def figure(page: str, figure_id: str) -> dict:
    match = re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', page, re.S)
    assert match, f"no figure {figure_id}"
    return json.loads(match.group(1))


def page(client, url: str, language: str = "en") -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_the_list_draws_each_series_with_a_line_where_its_change_lies(client, member, official_change):
    html = page(client, reverse("changes:list"))
    drawn = figure(html, "series-1")
    assert drawn["layout"]["xaxis"]["categoryarray"] == ["17.0", "17.1", "17.2", "17.3", "17.4"]
    [line] = drawn["layout"]["shapes"]
    assert line["x0"] == 2.5
    assert drawn["layout"]["annotations"][0]["text"] == f"-8.0% ({official_change.confidence_percent})"
    assert "17.2 → 17.3" in html and ">new<" in html


def test_a_member_with_the_permission_marks_a_change_known_and_it_is_no_longer_new(client, member, official_change):
    acknowledgers_ensure(apps)
    url = reverse("changes:acknowledge", args=[official_change.pk])
    response = client.post(url, {"kind": "known", "note": "", "link": ""})
    assert response.status_code == 400
    assert not Acknowledgement.objects.exists()

    client.post(url, {"kind": "known", "note": "", "link": "git.postgresql.org/c/abc"})
    acknowledgement = Acknowledgement.objects.get()
    assert (acknowledgement.kind, acknowledgement.by) == ("known", member)
    assert acknowledgement.link == "https://git.postgresql.org/c/abc"  # a link given without its scheme
    assert not ChangePoint.objects.new().exists()
    listed = page(client, reverse("changes:list"))
    assert "17.2 → 17.3" in listed and "git.postgresql.org/c/abc" in listed
    assert "1 new change in official series" not in page(client, reverse("trends:index"))


def test_a_member_without_the_permission_cannot_acknowledge(client, official_change):
    client.force_login(User.objects.create_user("reader", password="pw-reader-1"))
    response = client.post(reverse("changes:acknowledge", args=[official_change.pk]), {"kind": "noise"})
    assert response.status_code == 403
    assert not Acknowledgement.objects.exists()


def test_new_official_changes_are_on_the_home_page_and_in_the_atom_feed(client, member, official_change):
    home = page(client, reverse("trends:index"))
    assert "1 new change in official series" in home
    assert reverse("changes:detail", args=[official_change.pk]) in home
    feed = page(client, reverse("changes:feed"))
    assert '<feed xml:lang="en" xmlns="http://www.w3.org/2005/Atom">' in feed
    assert "17.2 → 17.3 -8.0%" in feed


def test_the_change_page_shows_the_card_and_its_rule_in_japanese(client, member, official_change):
    html = page(client, reverse("changes:detail", args=[official_change.pk]), language="ja")
    assert "2つの側の間で動いたもの" in html


def test_the_minor_series_page_draws_tps_per_minor_per_level_with_intervals(client, member, official_change):
    study = official_change.before_study
    drawn = figure(page(client, reverse("changes:minors", args=[study.pk])), f"minors-{official_change.scenario_id}")
    [level] = drawn["data"]
    assert level["x"] == ["17.0", "17.1", "17.2", "17.3", "17.4"]
    assert level["y"] == [1000.0, 1000.0, 1000.0, 920.0, 920.0]
    assert level["error_y"]["array"][0] is None
    assert all(bar is not None for bar in level["error_y"]["array"][1:])


def test_the_study_page_and_the_home_page_list_the_changes_of_the_series_they_draw(client, member, official_change):
    study = official_change.before_study
    study_page = page(client, reverse("studies:detail", args=[study.pk]))
    assert reverse("changes:detail", args=[official_change.pk]) in study_page.split('class="series-changes"')[1]
    assert reverse("changes:minors", args=[study.pk]) in study_page
    assert 'class="series-changes"' not in page(client, reverse("trends:index"))


def test_the_home_page_lists_the_change_points_of_each_scenarios_index_under_its_chart(client, member):
    official_index_with_a_step()
    changes_refresh()
    change = ChangePoint.objects.get(series_kind="trend")
    section = page(client, reverse("trends:index")).split('id="trend-pgecons-reference"')[1]
    listed = section.split('class="series-changes"')[1].split("</div>")[0]
    assert reverse("changes:detail", args=[change.pk]) in listed and "13 → 14" in listed and "-20.0%" in listed


def test_the_admin_lists_change_points_read_only(admin_client, official_change):
    listed = admin_client.get(reverse("admin:changes_changepoint_changelist"), HTTP_ACCEPT_LANGUAGE="en")
    assert listed.status_code == 200 and "-8.0%" in listed.content.decode()
    assert admin_client.get(reverse("admin:changes_changepoint_add")).status_code == 403


def test_changes_at_one_minor_share_its_line_and_stack_their_sizes():
    from benchdash.changes.charts import Marked, series_figure

    figure = series_figure(
        ["17.0", "17.1", "17.2"], [1.0, 1.0, 2.0], [Marked("17.2", -0.05), Marked("17.2", -0.09)], y_title=""
    )
    notes = figure["layout"]["annotations"]
    assert [(note["x"], note["text"], note["yshift"]) for note in notes] == [(1.5, "-5.0%", 0), (1.5, "-9.0%", 14)]


def test_a_change_whose_trials_left_no_evidence_says_so(client, member, official_change):
    html = page(client, reverse("changes:detail", args=[official_change.pk]))
    assert "No evidence to compare" in html and "trials left any (published figures)" in html


def test_a_feed_reader_subscribes_with_a_members_api_token_and_a_bad_one_is_refused(client, official_change, settings):
    from benchdash.api.tokens import issue_token

    settings.PUBLIC_READ = False
    _row, token = issue_token(User.objects.create_user("reader", password="pw-reader-1"), "feed reader")
    url = reverse("changes:feed")
    assert client.get(url).status_code == 401
    assert client.get(url, HTTP_AUTHORIZATION="Bearer bd_not-a-token").status_code == 401
    read = client.get(url, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert read.status_code == 200 and "17.2 → 17.3 -8.0%" in read.content.decode()


def test_a_minor_series_without_changes_links_its_tps_per_version_from_its_page(client, member):
    study = minor_series(dict.fromkeys(STEP, 1000.0))
    html = page(client, reverse("studies:detail", args=[study.pk]))
    assert reverse("changes:minors", args=[study.pk]) in html.split('class="series-changes"')[1]
