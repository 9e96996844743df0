"""Member accounts: the login page in the site's look and both languages, logout by POST, the password change,
and what each role may do: browse, queue, cancel and retry, administer (refused with 403, never 500)."""

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory
from tests.store_template import database_before

ROLES = ["Members: browse", "Members: queue", "Members: cancel and retry", "Members: administer"]
PASSWORD = "a-long-member-passphrase-15"


@pytest.fixture
def study(member_roles: None) -> Study:
    """A running study with one failed trial: something to cancel, retry and mark."""
    build, scenario = BuildFactory(version="15.0"), ScenarioFactory(slug="pgbench-select-only")
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build, status=Study.Status.DONE)
    TrialFactory(study=study, build=build, scenario=scenario, status=Trial.Status.FAILED, error="lost")
    return study


def member_of(client, role: str, *, staff: bool = False) -> User:
    user = User.objects.create_user(f"m-{len(role)}", password=PASSWORD, is_staff=staff)
    user.groups.add(Group.objects.get(name=role))
    client.force_login(user)
    return user


def test_the_roles_exist_and_each_holds_what_the_one_before_holds(member_roles: None) -> None:
    permissions = [
        set(Group.objects.get(name=role).permissions.values_list("content_type__app_label", "codename"))
        for role in ROLES
    ]
    assert permissions[0] == {
        ("studies", "view_study"),
        ("studies", "view_trial"),
        ("inventory", "view_host"),
        ("inventory", "view_build"),
    }
    assert permissions[1] - permissions[0] == {("studies", "add_study")}
    assert permissions[2] - permissions[1] == {("studies", "cancel_study"), ("changes", "add_acknowledgement")}
    assert {("studies", "mark_official"), ("studies", "change_study"), ("inventory", "change_host")} <= (
        permissions[3] - permissions[2]
    )


@pytest.mark.parametrize(("language", "title", "button"), [("en", "Log in", "Log in"), ("ja", "ログイン", "ログイン")])
def test_the_login_page_has_the_sites_look_in_both_languages(client, db, language, title, button) -> None:
    response = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE=language)

    page = response.content.decode()
    assert response.status_code == 200
    assert f"<title>{title} · benchdash</title>" in page
    assert 'class="site-header"' in page and 'id="language-select"' in page
    assert f'<button type="submit" class="button">{button}</button>' in page
    assert 'name="username"' in page and 'name="password"' in page


def test_a_member_logs_in_and_comes_back_to_the_page_asked_for(client, db) -> None:
    User.objects.create_user("reader", password=PASSWORD)
    studies = reverse("studies:list")

    response = client.post(reverse("login"), {"username": "reader", "password": PASSWORD, "next": studies})

    assert response.status_code == 302 and response["Location"] == studies
    assert client.get(studies).context["user"].get_username() == "reader"


def test_a_wrong_password_is_refused_with_a_message(client, db) -> None:
    User.objects.create_user("reader", password=PASSWORD)

    response = client.post(reverse("login"), {"username": "reader", "password": "wrong"}, HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_logout_is_a_post_and_a_get_changes_nothing(client, db) -> None:
    client.force_login(User.objects.create_user("reader", password=PASSWORD))

    assert client.get(reverse("logout")).status_code == 405
    assert "_auth_user_id" in client.session
    response = client.post(reverse("logout"))
    assert response.status_code == 302 and response["Location"] == reverse("trends:index")
    assert "_auth_user_id" not in client.session


def test_a_member_changes_the_password(client, db) -> None:
    user = User.objects.create_user("reader", password=PASSWORD)
    client.force_login(user)
    new = "another-long-passphrase-16"

    page = client.get(reverse("password_change"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    response = client.post(
        reverse("password_change"), {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )

    assert 'class="site-header"' in page and 'name="old_password"' in page
    assert response.status_code == 302 and response["Location"] == reverse("password_change_done")
    user.refresh_from_db()
    assert user.check_password(new)
    assert "_auth_user_id" in client.session  # still logged in here


def test_the_password_change_needs_the_old_password(client, db) -> None:
    user = User.objects.create_user("reader", password=PASSWORD)
    client.force_login(user)

    response = client.post(
        reverse("password_change"), {"old_password": "wrong", "new_password1": "x-1-y-2-z-3-w", "new_password2": "x"}
    )

    assert response.status_code == 200
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_the_password_change_page_sends_a_visitor_to_log_in(client, db) -> None:
    response = client.get(reverse("password_change"))

    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def actions(study: Study) -> dict[str, tuple[str, str, dict[str, str]]]:
    """Each action a member may be allowed: method, URL and POST data."""
    return {
        "browse": ("get", reverse("studies:detail", args=[study.pk]), {}),
        "queue": ("get", reverse("studies:new"), {}),
        "cancel": ("post", reverse("studies:cancel", args=[study.pk]), {}),
        "retry": ("post", reverse("studies:retry_failed", args=[study.pk]), {}),
        "mark official": ("post", reverse("studies:official", args=[study.pk]), {"official": "true"}),
        "write conclusions": ("post", reverse("studies:conclusions", args=[study.pk]), {"conclusions": "ok"}),
    }


ALLOWED = {
    "Members: browse": {"browse"},
    "Members: queue": {"browse", "queue"},
    "Members: cancel and retry": {"browse", "queue", "cancel", "retry"},
    "Members: administer": {"browse", "queue", "cancel", "retry", "mark official", "write conclusions"},
}


@pytest.mark.parametrize("role", ROLES)
def test_a_role_is_allowed_its_actions_and_refused_the_others_with_403(client, study, role, settings) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # a retry queues; nothing listens there
    member_of(client, role)

    answers = {
        name: getattr(client, method)(url, data, HTTP_ACCEPT_LANGUAGE="en").status_code
        for name, (method, url, data) in actions(study).items()
    }

    allowed = {name for name, status in answers.items() if status in (200, 302)}
    refused = {name for name, status in answers.items() if status == 403}
    assert allowed == ALLOWED[role]
    assert refused == set(answers) - ALLOWED[role]


def test_a_refusal_is_the_sites_403_page(client, study) -> None:
    member_of(client, "Members: browse")

    response = client.post(reverse("studies:cancel", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 403
    assert "Your account may not do this." in response.content.decode()
    assert 'class="site-header"' in response.content.decode()
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE


def test_the_admin_needs_the_staff_flag_as_well_as_the_role(client, study) -> None:
    admin_link = f'<a href="{reverse("admin:index")}">Admin</a>'
    member_of(client, "Members: administer")
    assert client.get(reverse("admin:index")).status_code == 302  # to the admin's login
    assert admin_link not in client.get(reverse("studies:list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    User.objects.filter(username=f"m-{len('Members: administer')}").update(is_staff=True)
    assert client.get(reverse("admin:index")).status_code == 200
    assert client.get(reverse("admin:inventory_host_changelist")).status_code == 200
    assert admin_link in client.get(reverse("studies:list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_a_visitor_is_sent_to_log_in_for_every_action(client, study) -> None:
    for name, (method, url, data) in actions(study).items():
        if name == "browse":
            continue
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, name
        assert response["Location"].startswith(reverse("login")), name


@pytest.mark.django_db(transaction=True)
def test_whoever_could_queue_before_the_roles_may_still_cancel_and_retry() -> None:
    roles = ("studies", "0013_member_roles")
    with database_before(roles):  # a copy with 0013's dependencies only, dropped after
        User.objects.create_user("queuer").user_permissions.add(Permission.objects.get(codename="add_study"))
        Group.objects.create(name="team").permissions.add(Permission.objects.get(codename="add_study"))

        MigrationExecutor(connection).migrate([roles])

        assert User.objects.get(username="queuer").has_perm("studies.cancel_study")
        assert Group.objects.get(name="team").permissions.filter(codename="cancel_study").exists()
        assert Group.objects.filter(name__in=ROLES).count() == 4
