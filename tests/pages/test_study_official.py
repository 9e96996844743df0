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


def mark(client, study: Study, official: str = "true"):
    return client.post(reverse("studies:official", args=[study.pk]), {"official": official}, HTTP_ACCEPT_LANGUAGE="en")


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
    assert "Include in trends (mark official)" in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    mark(client, study)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "official: counts in the trends" in page
    assert "marked by marker on" in page
    assert "Take it out of the trends" in page
