"""The exception reporter's filter masks every kind of secret-holding setting by its name, and URL passwords in any
value; a log line loses them too."""

import logging

import pytest
from django.conf import settings
from django.views.debug import get_default_exception_reporter_filter

from benchdash.redaction import MASK, SecretHidingFilter, SecretHidingFormatter, without_url_passwords


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("BROKER_URL", "redis://:s3cret-pw@10.0.0.5:6379/0", f"redis://:{MASK}@10.0.0.5:6379/0"),
        ("MIRROR_URL", "https://user:p%40ss@example.org/x", f"https://user:{MASK}@example.org/x"),
        ("PLAIN_URL", "https://example.org/x?a=b", "https://example.org/x?a=b"),
        ("STORE_CREDENTIALS", "benchdash:pw@", MASK),
        ("SMTP_PASSWORD", "hunter22", MASK),
        ("SIGNING_SECRET", "abc", MASK),
        ("AWS_ACCESS_KEY_ID", "AKIA123", MASK),
        ("TIME_ZONE", "Asia/Tokyo", "Asia/Tokyo"),
    ],
)
def test_the_filter_masks_each_kind_of_secret_setting(name: str, value: str, shown: str) -> None:
    assert SecretHidingFilter().cleanse_setting(name, value) == shown


def test_the_filter_reaches_into_nested_settings_and_is_the_site_s_default() -> None:
    nested = {"default": {"PASSWORD": "pw", "HOST": "h", "OPTIONS": {"dsn": "postgres://u:pw123@h/db"}}}

    cleansed = SecretHidingFilter().cleanse_setting("DATABASES", nested)

    assert cleansed == {"default": {"PASSWORD": MASK, "HOST": "h", "OPTIONS": {"dsn": f"postgres://u:{MASK}@h/db"}}}
    assert isinstance(get_default_exception_reporter_filter(), SecretHidingFilter)


def test_the_safe_settings_hold_none_of_the_site_s_secrets() -> None:
    shown = repr(SecretHidingFilter().get_safe_settings())

    password = settings.DATABASES["default"]["PASSWORD"]
    assert password and password not in shown and settings.SECRET_KEY not in shown
    assert "redis://:" + MASK in shown


def test_a_url_without_a_password_keeps_its_user() -> None:
    assert without_url_passwords("ssh://deploy@host:22/ and mailto:x@y") == "ssh://deploy@host:22/ and mailto:x@y"


def test_a_log_line_and_its_traceback_lose_url_passwords_and_the_secret_key() -> None:
    try:
        raise ValueError(f"key {settings.SECRET_KEY}")
    except ValueError as error:
        record = logging.LogRecord(
            "x",
            logging.ERROR,
            __file__,
            1,
            "to %s",
            ("amqp://u:pw-123@h//",),
            (type(error), error, error.__traceback__),
        )

    line = SecretHidingFormatter().format(record)

    assert f"to amqp://u:{MASK}@h//" in line and f"ValueError: key {MASK}" in line
    assert settings.SECRET_KEY not in line


def test_a_log_line_loses_the_smtp_password_of_the_alerts() -> None:
    from django.test import override_settings

    from benchdash.redaction import site_secrets

    site_secrets.cache_clear()
    try:
        with override_settings(EMAIL_HOST_PASSWORD="smtp-pass-for-alerts"):
            record = logging.LogRecord("x", logging.ERROR, __file__, 1, "login %s", ("smtp-pass-for-alerts",), None)
            line = SecretHidingFormatter().format(record)
    finally:
        site_secrets.cache_clear()
    assert line == f"login {MASK}"
