"""With DEBUG on, no error page shows a password, a key or a URL with credentials, whoever asks; the debug page
itself goes only to staff logged in on this machine, and never for a request naming a Host the site does not serve.

The secrets are the real settings' own: the store's and Redis's generated passwords and SECRET_KEY.
"""

import io
import logging
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from benchdash.redaction import MASK, SecretHidingFormatter

LOOPBACK = "127.0.0.1"
VISITORS = ["anonymous", "member", "staff"]
# What each kind of page answers, and the words only Django's debug page for it has.
PAGES = {
    "bad host": ("/", {"HTTP_HOST": "evil.example"}, 400, "DisallowedHost"),
    "missing page": ("/no-such-page/", {}, 404, "URLconf"),
    "failing page": ("/broken-broker/", {}, 500, "Traceback"),
}


def real_secrets() -> list[str]:
    passwords = [settings.DATABASES["default"]["PASSWORD"], urlsplit(settings.REDIS_URL).password or ""]
    secrets = [settings.SECRET_KEY, *passwords, *(quote(password, safe="") for password in passwords)]
    assert all(len(secret) >= 8 for secret in secrets), "set-up generates the store's and Redis's passwords"
    return secrets


@pytest.fixture
def debug_client(settings, db: None) -> Client:
    settings.DEBUG = True
    return Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")


def logged_in(client: Client, visitor: str) -> Client:
    if visitor != "anonymous":
        client.force_login(User.objects.create_user(f"{visitor}-1", is_staff=visitor == "staff"))
    return client


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """What the site's own log handler (settings.LOGGING, secret-hiding) writes, while the test runs."""
    handler = next(h for h in logging.getLogger().handlers if isinstance(h.formatter, SecretHidingFormatter))
    lines = io.StringIO()
    previous = handler.setStream(lines)
    yield lines
    handler.setStream(previous)


@pytest.mark.urls("tests.pages.broken_urls")
@pytest.mark.parametrize("visitor", VISITORS)
@pytest.mark.parametrize("page", PAGES)
def test_no_page_shows_a_secret_and_only_staff_on_this_machine_get_a_debug_page(
    debug_client: Client, log_lines: io.StringIO, visitor: str, page: str
) -> None:
    path, headers, status, debug_words = PAGES[page]
    # runserver copies the environment into request.META: DATABASE_URL may be set there.
    environ = {"REMOTE_ADDR": LOOPBACK, "DATABASE_URL": settings.DATABASE_URL, **headers}

    response = logged_in(debug_client, visitor).get(path, **environ)

    html = response.content.decode()
    assert response.status_code == status
    assert (debug_words in html) == (visitor == "staff" and page != "bad host")
    assert [secret for secret in real_secrets() if secret in html + log_lines.getvalue()] == []


@pytest.mark.urls("tests.pages.broken_urls")
def test_staff_s_debug_page_shows_the_settings_and_the_error_with_their_passwords_masked(
    debug_client: Client, log_lines: io.StringIO
) -> None:
    logged_in(debug_client, "staff")

    html = debug_client.get("/broken-broker/", REMOTE_ADDR=LOOPBACK).content.decode()

    broker = urlsplit(settings.CELERY_BROKER_URL)
    masked_broker = f"redis://:{MASK}@{broker.hostname}:{broker.port}/0"
    assert f"cannot reach {masked_broker}" in html  # the exception's message
    assert html.count(masked_broker) >= 4  # REDIS_URL, CELERY_BROKER_URL, CELERY_RESULT_BACKEND, the local variable
    assert "STORE_CREDENTIALS" not in html and "REDIS_CREDENTIALS" not in html  # not settings at all
    assert f"cannot reach {masked_broker}" in log_lines.getvalue()  # logged as "Internal Server Error", masked


@pytest.mark.urls("tests.pages.broken_urls")
def test_with_debug_off_the_log_of_a_failing_page_shows_no_secret(client, settings, log_lines: io.StringIO) -> None:
    settings.DEBUG = False
    client.raise_request_exception = False

    response = client.get("/broken-broker/")

    assert response.status_code == 500 and "cannot reach" not in response.content.decode()
    assert "cannot reach redis://:" in log_lines.getvalue()
    assert [secret for secret in real_secrets() if secret in log_lines.getvalue()] == []


def test_staff_behind_a_proxy_on_this_machine_gets_no_debug_page(debug_client: Client) -> None:
    logged_in(debug_client, "staff")

    response = debug_client.get("/no-such-page/", REMOTE_ADDR=LOOPBACK, HTTP_X_FORWARDED_FOR="203.0.113.9")

    assert response.status_code == 404 and "URLconf" not in response.content.decode()
