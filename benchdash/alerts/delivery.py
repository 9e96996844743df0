"""Sending an alert: by e-mail through Django's mail backend (console by default, SMTP by settings), and by webhook
(a signed JSON POST). The only module of the app that opens a connection for alerts.

A webhook URL is user input: before each POST its name is resolved and every address checked as hosts' are
(workers/addresses.py), the connection is made to the address checked (never resolved again: a name that answers
otherwise the second time cannot slip through), and redirects are never followed (a 3xx is a failure), so that an
endpoint cannot send the worker to a metadata address.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.request
from functools import partial
from ipaddress import IPv4Address, IPv6Address
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


class PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to the address given, whatever its host's name resolves to now (the Host header keeps it)."""

    def __init__(self, host: str, *, pinned: IPv4Address | IPv6Address, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self.pinned = pinned

    def connect(self) -> None:
        self.sock = _socket_to(self.pinned, self.port, self.timeout)


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """The same over TLS: the certificate is still checked against the host's name."""

    def __init__(self, host: str, *, pinned: IPv4Address | IPv6Address, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self.pinned = pinned

    def connect(self) -> None:
        raw = _socket_to(self.pinned, self.port, self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def _socket_to(pinned: IPv4Address | IPv6Address, port: int, timeout: float | None) -> socket.socket:
    return socket.create_connection((str(pinned), port), timeout)


class _PinnedHandler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """http and https both, every connection to the pinned address (it replaces urllib's own two handlers)."""

    def __init__(self, pinned: IPv4Address | IPv6Address) -> None:
        super().__init__()
        self.pinned = pinned

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(PinnedHTTPConnection, pinned=self.pinned), req)  # type: ignore[arg-type]

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(PinnedHTTPSConnection, pinned=self.pinned), req)  # type: ignore[arg-type]


def _opener(pinned: IPv4Address | IPv6Address) -> urllib.request.OpenerDirector:
    """No proxy (it would be connected to instead), no redirect, every connection to the pinned address."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects, _PinnedHandler(pinned))


def webhook_url_problem(url: str) -> str | None:
    """Why benchdash refuses to POST to `url` (a sentence), or None."""
    problem, _ips = _checked(url)
    return problem


def _checked(url: str) -> tuple[str | None, list[IPv4Address | IPv6Address]]:
    """Why `url` is refused (or None), and the addresses its name stands for now, every one checked."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http(s) URL", []
    ips = resolve(parts.hostname)
    found = None if settings.ALLOW_LINK_LOCAL_HOSTS else address_problem(ips)
    return (None if found is None else refused_reason(parts.hostname, *found)), ips


def webhook_post(url: str, secret: str, payload: dict[str, Any]) -> None:
    """POST the payload as JSON, signed with the secret, to the address checked; DeliveryFailed unless the endpoint
    answers 2xx."""
    problem, ips = _checked(url)
    if problem is not None or not ips:
        raise DeliveryFailed(problem or f"webhook {url}: its name does not resolve")
    body = json.dumps(payload, ensure_ascii=False).encode()
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: signature(secret, body)}
    # The scheme is http(s): _checked refused any other.
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310
    try:
        with _opener(ips[0]).open(request, timeout=settings.ALERT_TIMEOUT_S) as response:
            response.read()
    except (urllib.error.URLError, OSError) as error:
        raise DeliveryFailed(f"webhook {url}: {error}") from error


def email_send(address: str, subject: str, text: str) -> None:
    """One e-mail through the configured backend; DeliveryFailed when the server refuses or cannot be reached."""
    try:
        send_mail(subject, text, settings.ALERT_FROM, [address], fail_silently=False)
    except OSError as error:  # smtplib's errors are OSErrors, as are connection failures
        raise DeliveryFailed(f"e-mail to {address}: {error}") from error
