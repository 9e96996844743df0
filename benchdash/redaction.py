"""No password, key or URL credentials on any page or log line: what Django's debug pages, error mails and the
logs show goes through here.

Django masks settings by a few names only (KEY, PASS, ...): a setting such as REDIS_URL or CELERY_BROKER_URL
carries the password inside its value. Here every value loses the password of any URL it holds, names with
CREDENTIAL mask their whole value, and the text of a page or log line loses the site's own secrets (the
store's and Redis's passwords, SECRET_KEY) wherever they appear, in an exception's message too.
"""

import logging
import re
from collections.abc import Iterable
from functools import cache
from types import FrameType
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.views.debug import SafeExceptionReporterFilter

MASK = SafeExceptionReporterFilter.cleansed_substitute
# scheme://user:PASSWORD@ : the password is what lies between the user's colon and the @.
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^\s:/@]*:)[^\s/@]+(?=@)", re.IGNORECASE)
# Shorter "secrets" (an empty password's stand-in, a test's "pw") would mask ordinary words.
_SHORTEST_SECRET = 8


def without_url_passwords(text: str) -> str:
    return _URL_PASSWORD.sub(rf"\g<head>{MASK}", text)


def without_secrets(text: str) -> str:
    """The text with URL passwords and every one of the site's own secrets masked."""
    text = without_url_passwords(text)
    for secret in site_secrets():
        text = text.replace(secret, MASK)
    return text


@cache
def site_secrets() -> tuple[str, ...]:
    """The secrets the settings hold, as written and as quoted in a URL, the longest first."""
    found = {settings.SECRET_KEY, *(database.get("PASSWORD") or "" for database in settings.DATABASES.values())}
    found.add(getattr(settings, "EMAIL_HOST_PASSWORD", ""))  # the alerts' SMTP server's (docs/ALERTS.md)
    found.update(_url_passwords(getattr(settings, name) for name in dir(settings) if name.isupper()))
    spellings = {spelling for secret in found for spelling in (secret, quote(secret, safe=""))}
    return tuple(sorted((s for s in spellings if len(s) >= _SHORTEST_SECRET), key=len, reverse=True))


def _url_passwords(values: Iterable[Any]) -> set[str]:
    passwords = set()
    for value in values:
        if isinstance(value, str) and "://" in value:
            try:
                password = urlsplit(value).password
            except ValueError:
                continue
            if password:
                passwords.add(unquote(password))
    return passwords


class SecretHidingFilter(SafeExceptionReporterFilter):
    """DEFAULT_EXCEPTION_REPORTER_FILTER: Django's masks by name, widened to CREDENTIAL, and every text value loses
    its URL passwords: settings, request.META (runserver copies the environment into it) and frame variables."""

    hidden_settings = re.compile("API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|CREDENTIAL", re.IGNORECASE)

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        return _text_cleansed(super().cleanse_setting(key, value))

    def get_traceback_frame_variables(self, request: HttpRequest | None, tb_frame: FrameType) -> Any:
        # Not cleanse_setting's walk into containers: a frame's dict may hold itself.
        return [
            (name, MASK if self.hidden_settings.search(name) else _text_cleansed(value))
            for name, value in super().get_traceback_frame_variables(request, tb_frame)
        ]


def _text_cleansed(value: Any) -> Any:
    # str() for lazy strings too (a setting may be one), which the regular expression takes only once evaluated.
    return without_secrets(str(value)) if isinstance(value, str) else value


class SecretHidingFormatter(logging.Formatter):
    """Every log line, its traceback included, without URL passwords or the site's secrets."""

    def format(self, record: logging.LogRecord) -> str:
        return without_secrets(super().format(record))
