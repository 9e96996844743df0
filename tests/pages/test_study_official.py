"""The mark that makes a study count in the trends: who may set it, when, and what the study page says."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from benchdash.studies.models import Study
from tests.factories import StudyFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def marker(django_user_model):
    user = django_user_model.objects.create_user("marker")
    user.user_permissions.add(Permission.objects.get(codename="mark_official"))
    return user


def mark(client, study: Study, official: str = "true", **fields):
    """Mark as the confirmation screen does (a study of the factory is below the rules: a reason goes with it)."""
    data = {"official": official, "confirm": "1", "reason": "a smoke test", **fields}
    return client.post(reverse("studies:official", args=[study.pk]), data, HTTP_ACCEPT_LANGUAGE="en")


def test_a_measured_study_starts_unofficial_and_a_published_one_official():
    assert StudyFactory(kind=Study.Kind.MEASURED).official is False
    assert StudyFactory(kind=Study.Kind.PUBLISHED, status=Study.Status.DONE).official is True


def test_a_member_with_the_permission_marks_a_done_study_official(client, marker):
    study = StudyFactory(status=Study.Status.DONE)
    client.force_login(marker)

    response = mark(client, study)

    assert response.status_code == 302
    study.refresh_from_db()
    assert (study.official, study.official_by, study.official_at is not None) == (True, marker, True)


def test_a_member_without_the_permission_is_refused_and_nothing_changes(client, django_user_model):
    study = StudyFactory(status=Study.Status.DONE)
    client.force_login(django_user_model.objects.create_user("member"))

    response = mark(client, study)

    assert response.status_code == 403
    study.refresh_from_db()
    assert study.official is False


def test_an_anonymous_visitor_is_sent_to_the_login_page(client):
    study = StudyFactory(status=Study.Status.DONE)

    response = mark(client, study)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    study.refresh_from_db()
    assert study.official is False


def test_a_study_that_still_runs_cannot_be_marked_official(client, marker):
    study = StudyFactory(status=Study.Status.RUNNING)
    client.force_login(marker)

    response = mark(client, study)

    study.refresh_from_db()
    assert study.official is False
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "A study counts in the trends only once nothing of it runs any more." in page


def test_a_member_takes_an_official_study_out_of_the_trends(client, marker):
    study = StudyFactory(kind=Study.Kind.PUBLISHED, status=Study.Status.DONE)
    client.force_login(marker)

    mark(client, study, "false")

    study.refresh_from_db()
    assert (study.official, study.official_by, study.official_at) == (False, None, None)


def test_a_get_changes_nothing(client, marker):
    study = StudyFactory(status=Study.Status.DONE)
    client.force_login(marker)

    response = client.get(reverse("studies:official", args=[study.pk]))

    assert response.status_code == 405
    study.refresh_from_db()
    assert study.official is False


def test_the_study_page_says_whether_the_study_counts(client, marker):
    study = StudyFactory(status=Study.Status.DONE)
    url = reverse("studies:detail", args=[study.pk])

    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "not official: does not count in the trends" in page
    assert "Include in trends (mark official)" not in page  # only for a member with the permission

    client.force_login(marker)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Include in trends (mark official)" in page
    assert reverse("studies:official_confirm", args=[study.pk]) in page
    mark(client, study)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "official: counts in the trends" in page
    assert "marked by marker on" in page
    assert "Take it out of the trends" in page


def _smoke_test_study():
    """The issue's case: 3 s at scale 1 on a noisy host, 3 runs a side, one failed trial; made from the 2021 preset,
    which runs its scenario for 60 s at scale 2000 (2014's checksums preset, first by slug, runs it too)."""
    from benchdash.studies.models import StudyPreset, Trial
    from tests.factories import BuildFactory, ScenarioFactory, TrialFactory, succeeded_runs

    scenario = ScenarioFactory(slug="pgecons-reference-smoke")
    preset = StudyPreset.objects.create(slug="pgecons-2021", name="PGECons 2021", client_levels=[1], scale=2000)
    checksums = StudyPreset.objects.create(
        slug="pgecons-2014-checksums", name="PGECons 2014: page checksums", client_levels=[1], duration_s=1, scale=1
    )
    for each in (preset, checksums):
        each.scenarios.add(scenario)
    old, new = BuildFactory(version="13.4"), BuildFactory(version="15.0")
    study = StudyFactory(
        status=Study.Status.DONE,
        builds=[old, new],
        baseline=old,
        scenarios=[scenario],
        duration_s=3,
        scale=1,
        noise_check={"verdict": "noisy"},
        preset=preset,
    )
    succeeded_runs(study, scenario, {(old, 1): [100.0, 140.0, 70.0], (new, 1): [150.0, 90.0, 200.0]})
    TrialFactory(study=study, build=new, scenario=scenario, clients=2, status=Trial.Status.FAILED, error="boom")
    return study


def test_marking_official_shows_the_studys_quality_first_and_changes_nothing(client, marker):
    study = _smoke_test_study()
    client.force_login(marker)

    response = client.post(reverse("studies:official", args=[study.pk]), {"official": "true"})
    assert response["Location"] == reverse("studies:official_confirm", args=[study.pk])
    study.refresh_from_db()
    assert study.official is False  # the home page's figures never change without the screen

    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    checks = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").context["quality"].checks
    assert [(str(c.name), c.value, c.met) for c in checks] == [
        ("noise check of the DB host", "noisy", False),
        ("duration", "3 s", False),
        ("scale", "1", False),
        ("run-to-run spread", "35.8%", False),  # the median of the two cells' CVs, 34.0% and 37.6%
        ("cells with a verdict", "0 / 1 (0%)", False),  # can't tell (its 3 rounds alone) is no verdict
        ("failed trials", "1", False),
    ]
    assert (
        str(checks[1].rule) == "at least PGECons 2021's 60 s" and str(checks[2].rule) == "at least PGECons 2021's 2000"
    )
    assert "This study is below the rules" in page and 'name="reason"' in page


def test_below_the_rules_a_study_counts_only_with_a_written_reason_which_the_pages_show(client, marker):
    study = _smoke_test_study()
    client.force_login(marker)

    refused = mark(client, study, reason="  ")
    assert refused.status_code == 400 and "write why this study should count" in refused.content.decode()
    study.refresh_from_db()
    assert study.official is False

    mark(client, study, reason="the only 15.0 figures we have; rerun planned")
    study.refresh_from_db()
    assert (study.official, study.official_reason) == (True, "the only 15.0 figures we have; rerun planned")
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "the reason given:" in page and "rerun planned" in page
    trends = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "drawn open: this study is below the rules for an official study" in trends
    assert "&quot;circle-open&quot;" in trends or '"circle-open"' in trends

    mark(client, study, "false")
    study.refresh_from_db()
    assert study.official_reason == ""


def test_a_study_that_meets_the_rules_needs_no_reason(client, marker):
    from tests.factories import BuildFactory, ScenarioFactory, succeeded_runs

    scenario = ScenarioFactory(slug="no-preset-runs-this")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="15.0")
    study = StudyFactory(
        status=Study.Status.DONE,
        builds=[old, new],
        baseline=old,
        scenarios=[scenario],
        noise_check={"verdict": "quiet"},
    )
    runs = [100.0, 101.0, 99.0, 100.5, 99.5]
    succeeded_runs(study, scenario, {(old, 1): runs, (new, 1): [run * 1.1 for run in runs]})
    client.force_login(marker)
    screen = client.get(reverse("studies:official_confirm", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert screen.context["quality"].meets_rules and 'name="reason"' not in screen.content.decode()
    client.post(reverse("studies:official", args=[study.pk]), {"official": "true", "confirm": "1"})
    study.refresh_from_db()
    assert (study.official, study.official_reason) == (True, "")


def test_the_admin_cannot_make_a_study_official_around_the_screen(admin_client):
    study = StudyFactory(status=Study.Status.DONE)
    page = admin_client.get(reverse("admin:studies_study_change", args=[study.pk])).content.decode()
    assert 'name="official"' not in page and 'name="official_reason"' not in page
