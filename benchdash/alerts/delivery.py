"""Sending an alert: by e-mail through Django's mail backend (console by default, SMTP by settings), and by webhook
(a signed JSON POST). The only module of the app that opens a connection for alerts.

A webhook URL is user input: before each POST its name is resolved and every address checked as hosts' are
(workers/addresses.py), and redirects are never followed (a 3xx is a failure), so that an endpoint cannot send the
worker to a metadata address.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import send_mail

from benchdash.alerts.messages import SIGNATURE_HEADER, signature
from workers.addresses import address_problem, refused_reason, resolve


class DeliveryFailed(Exception):
    """The endpoint or the mail server did not take the alert (retried by the task)."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises HTTPError for the 3xx itself


_OPENER = urllib.request.build_opener(_NoRedirects)


def webhook_url_problem(url: str) -> str | None:
    """Why benchdash refuses to POST to `url` (a sentence), or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http(s) URL"
    if settings.ALLOW_LINK_LOCAL_HOSTS:
        return None
    found = address_problem(resolve(parts.hostname))
    return None if found is None else refused_reason(parts.hostname, *found)


def webhook_post(url: str, secret: str, payload: dict[str, Any]) -> None:
    """POST the payload as JSON, signed with the secret; DeliveryFailed unless the endpoint answers 2xx."""
    if (problem := webhook_url_problem(url)) is not None:
        raise DeliveryFailed(problem)
    body = json.dumps(payload, ensure_ascii=False).encode()
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: signature(secret, body)}
    # The scheme is http(s): webhook_url_problem refused any other.
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310
    try:
        with _OPENER.open(request, timeout=settings.ALERT_TIMEOUT_S) as response:
            response.read()
    except (urllib.error.URLError, OSError) as error:
        raise DeliveryFailed(f"webhook {url}: {error}") from error


def email_send(address: str, subject: str, text: str) -> None:
    """One e-mail through the configured backend; DeliveryFailed when the server refuses or cannot be reached."""
    try:
        send_mail(subject, text, settings.ALERT_FROM, [address], fail_silently=False)
    except OSError as error:  # smtplib's errors are OSErrors, as are connection failures
        raise DeliveryFailed(f"e-mail to {address}: {error}") from error
