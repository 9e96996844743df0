"""Progress of a running study: the JSON the live panel polls, and the panel on the study page."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from benchdash.studies.lifecycle.progress import study_progress
from benchdash.studies.models import Study, Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def running_study():
    build, scenario = BuildFactory(), ScenarioFactory(slug="ref")
    study = StudyFactory(status=Study.Status.RUNNING, started_at=timezone.now() - timedelta(seconds=100))
    statuses = ["succeeded", "succeeded", "failed", "running", "pending", "pending", "pending", "pending"]
    for position, status in enumerate(statuses):
        TrialFactory(
            study=study, build=build, scenario=scenario, clients=position + 1, position=position, status=status
        )
    return study


def test_it_counts_done_failed_and_pending_trials(running_study):
    progress = study_progress(running_study)
    assert (progress.total, progress.finished, progress.succeeded, progress.failed, progress.pending) == (8, 3, 2, 1, 4)
    assert progress.percent == 37.5
    assert not progress.ended


def test_it_names_the_current_trial(running_study):
    current = study_progress(running_study).current
    assert (current.position, current.scenario, current.clients) == (3, "ref", 4)


def test_it_estimates_the_remaining_time_from_the_pace_so_far(running_study):
    progress = study_progress(running_study)
    assert 99 <= progress.elapsed_s <= 110
    assert progress.remaining_s == pytest.approx(progress.elapsed_s / 3 * 5)


def test_the_panel_shows_the_elapsed_and_remaining_time_before_its_first_poll(client, running_study):
    page = client.get(reverse("studies:detail", args=[running_study.pk])).content.decode()
    elapsed, remaining = re.findall(r'<dd data-live="(?:elapsed|remaining)">([^<]*)</dd>', page)
    assert re.fullmatch(r"1:4\d", elapsed) and re.fullmatch(r"2:4\d|2:5\d|3:0\d", remaining), (elapsed, remaining)


def test_an_ended_study_s_panel_shows_how_long_it_ran_and_nothing_remaining(client, running_study):
    started = running_study.started_at
    Study.objects.filter(pk=running_study.pk).update(
        status=Study.Status.DONE, finished_at=started + timedelta(hours=1, seconds=65)
    )
    page = client.get(reverse("studies:detail", args=[running_study.pk])).content.decode()
    assert '<dd data-live="elapsed">1:01:05</dd>' in page and '<dd data-live="remaining">—</dd>' in page


def test_the_progress_json_answers_the_live_panel(client, running_study):
    data = client.get(reverse("studies:progress", args=[running_study.pk])).json()
    assert data["finished"] == 3 and data["total"] == 8 and data["status"] == "running"
    assert data["current"]["clients"] == 4 and data["ended"] is False


def test_the_study_page_shows_the_live_panel_with_a_cancel_form_for_a_member(client, running_study, member):
    page = client.get(reverse("studies:detail", args=[running_study.pk])).content.decode()
    assert 'id="study-live"' in page
    assert f'data-progress-url="{reverse("studies:progress", args=[running_study.pk])}"' in page
    assert f'action="{reverse("studies:cancel", args=[running_study.pk])}"' in page
    assert "csrfmiddlewaretoken" in page


def test_a_visitor_sees_the_panel_without_the_buttons(client, running_study):
    page = client.get(reverse("studies:detail", args=[running_study.pk])).content.decode()
    assert 'id="study-live"' in page
    assert reverse("studies:cancel", args=[running_study.pk]) not in page


def test_the_panel_is_drawn_with_the_progress_before_the_first_poll(client, running_study):
    page = client.get(reverse("studies:detail", args=[running_study.pk])).content.decode()
    assert 'aria-valuenow="37.5"' in page and 'style="width: 37.5%"' in page
    assert '<span data-live="finished">3</span> / <span data-live="total">8</span>' in page
    assert '<dd data-live="failed">1</dd>' in page
    assert 'data-results-key="3/1/0/running"' in page


def test_the_results_key_changes_when_a_trial_finishes_and_the_json_carries_it(client, running_study):
    before = study_progress(running_study).results_key
    running_study.trials.filter(status=Trial.Status.RUNNING).update(status=Trial.Status.SUCCEEDED)
    data = client.get(reverse("studies:progress", args=[running_study.pk])).json()
    assert data["results_key"] == "4/1/0/running" != before


def test_a_published_study_has_no_live_panel(client):
    study = StudyFactory(kind=Study.Kind.PUBLISHED, status=Study.Status.DONE)
    assert 'id="study-live"' not in client.get(reverse("studies:detail", args=[study.pk])).content.decode()


def test_a_finished_study_has_nothing_left(running_study):
    Trial.objects.filter(study=running_study).exclude(status="failed").update(status="succeeded")
    Study.objects.filter(pk=running_study.pk).update(status=Study.Status.FAILED, finished_at=timezone.now())
    running_study.refresh_from_db()
    progress = study_progress(running_study)
    assert progress.ended and progress.remaining_s == 0.0 and progress.finished == 8


def test_with_adaptive_repetitions_it_says_how_many_trials_the_study_can_reach(client, running_study):
    running_study.builds.set([BuildFactory(version="14.0"), BuildFactory(version="15.0")])
    running_study.scenarios.set([ScenarioFactory()])
    Study.objects.filter(pk=running_study.pk).update(client_levels=[1, 2, 4], max_repetitions=6)
    running_study.refresh_from_db()
    assert study_progress(running_study).most_trials == 2 * 1 * 3 * 6
    assert client.get(reverse("studies:progress", args=[running_study.pk])).json()["most_trials"] == 36
    page = client.get(reverse("studies:detail", args=[running_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "(adaptive repetitions: up to 36)" in page


def test_without_adaptive_repetitions_there_is_no_cap(running_study):
    assert study_progress(running_study).most_trials is None


def test_a_host_s_waiting_note_shows_only_while_one_of_the_study_s_own_trials_runs(running_study):
    host = running_study.db_host
    host.unreachable_since = timezone.now() - timedelta(seconds=30)
    host.save()
    assert [wait.host for wait in study_progress(running_study).waiting] == [host.name]

    running_study.trials.filter(status="running").update(status="pending")  # a healthy study that waits its turn

    assert study_progress(running_study).waiting == ()


def test_a_host_busy_with_another_installation_shows_while_the_study_waits_its_turn(running_study, client, member):
    host = running_study.db_host
    other = "6f1d3a52-0000-4000-8000-00000000000b"
    host.busy_with, host.busy_since = other, timezone.now() - timedelta(seconds=30)
    host.save()
    assert study_progress(running_study).waiting == ()  # its own trial runs: the host is this installation's now

    running_study.trials.filter(status="running").update(status="pending")  # given back: it waits for the host

    (wait,) = study_progress(running_study).to_dict()["waiting"]
    assert (wait["host"], wait["busy_with"]) == (host.name, other)
    page = client.get(reverse("studies:detail", args=[running_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"Host {host.name} busy with another benchdash installation ({other}) since" in page
