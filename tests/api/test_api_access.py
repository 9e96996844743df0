"""The API follows the pages' access rule: anonymous only with public read; otherwise a member's session or token.
Tokens are made on the member's page, shown once, kept as a digest, and revocable."""

import hashlib

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.urls import reverse

from benchdash.api.models import ApiToken
from benchdash.api.tokens import issue_token
from tests.api.conftest import History

STUDIES = "/api/v1/studies"


@pytest.fixture
def closed() -> None:
    with override_settings(PUBLIC_READ=False):
        yield


@pytest.fixture
def owner(db: None) -> User:
    return User.objects.create_user("owner", password="an-owner-passphrase-15")


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def test_anonymous_reads_while_public_read_is_on(client, history: History) -> None:
    response = client.get(STUDIES)
    assert response.status_code == 200 and response.json()["count"] == 3


@pytest.mark.parametrize(
    "path", ["/hosts", "/builds", "/scenarios", "/studies", "/trends", "/trends/update", "/trends/update/links"]
)
def test_anonymous_is_refused_in_json_while_public_read_is_off(client, history: History, closed, path) -> None:
    response = client.get(f"/api/v1{path}")
    assert response.status_code == 401 and response.json() == {"detail": "Unauthorized"}


def test_a_logged_in_member_reads_with_public_read_off(client, history: History, closed, owner: User) -> None:
    client.force_login(owner)
    assert client.get(STUDIES).json()["count"] == 3


def test_a_token_reads_with_public_read_off_and_notes_its_use(client, history: History, closed, owner) -> None:
    row, token = issue_token(owner, "notebook")

    response = client.get(f"/api/v1/studies/{history.older.pk}/points", **bearer(token))

    assert response.status_code == 200 and len(response.json()["items"]) == 4
    row.refresh_from_db()
    assert row.last_used_at is not None


def test_a_revoked_wrong_or_orphaned_token_is_refused_even_with_public_read(client, history: History, owner) -> None:
    revoked, revoked_token = issue_token(owner, "old")
    ApiToken.objects.filter(pk=revoked.pk).update(revoked_at="2026-01-01T00:00Z")
    inactive = User.objects.create_user("gone", is_active=False)
    _row, inactive_token = issue_token(inactive, "left")

    for token in (revoked_token, inactive_token, "bd_not-a-token", ""):
        assert client.get(STUDIES, **bearer(token)).status_code == 401, token


def test_only_the_digest_of_a_token_is_stored(owner: User) -> None:
    row, token = issue_token(owner, "ci")

    stored = ApiToken.objects.values_list("prefix", "digest").get(pk=row.pk)
    assert token.startswith("bd_") and len(token) > 40
    assert stored == (token[:11], hashlib.sha256(token.encode()).hexdigest())
    assert token not in str(ApiToken.objects.filter(pk=row.pk).values().get())


def test_a_member_makes_a_token_on_their_page_and_sees_it_once(client, history: History, closed, owner) -> None:
    client.force_login(owner)

    made = client.post(reverse("api_tokens"), {"name": "yearly report"})
    token = made.context["new_token"]
    again = client.get(reverse("api_tokens")).content.decode()

    assert made.status_code == 200 and token in made.content.decode()
    assert token not in again and "yearly report" in again and token[:11] in again
    client.logout()
    assert client.get(STUDIES, **bearer(token)).json()["count"] == 3


def test_a_token_needs_a_name(client, owner: User) -> None:
    client.force_login(owner)
    response = client.post(reverse("api_tokens"), {"name": ""})
    assert response.status_code == 200 and response.context["new_token"] is None
    assert not ApiToken.objects.exists()


def test_a_member_revokes_their_own_token_only(client, history: History, owner: User) -> None:
    mine, token = issue_token(owner, "mine")
    other = User.objects.create_user("other")
    theirs, their_token = issue_token(other, "theirs")
    client.force_login(owner)

    client.post(reverse("api_token_revoke", args=[theirs.pk]))
    client.post(reverse("api_token_revoke", args=[mine.pk]))

    client.logout()
    assert client.get(STUDIES, **bearer(token)).status_code == 401
    assert client.get(STUDIES, **bearer(their_token)).status_code == 200


def test_the_tokens_page_wants_a_login(client, db: None) -> None:
    response = client.get(reverse("api_tokens"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
