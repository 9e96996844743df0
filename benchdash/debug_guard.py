"""With DEBUG on (`make run`, development), a debug page goes only to a staff member logged in on this machine.

A debug page shows the settings (masked by benchdash/redaction.py) and the code around an error. Anyone else gets the
site's plain 400, 404 and 500 pages, as with DEBUG off. "On this machine" means a loopback address and no proxy
header: behind a reverse proxy every request comes from 127.0.0.1, and X-Forwarded-For says it is someone else's.
Loopback alone is not enough: on a shared machine every local account is on loopback, hence staff as well. A request
for a Host this site does not serve never gets one: Django answers it (DisallowedHost) before any session is read.
"""

import ipaddress
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost, SuspiciousOperation
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import get_resolver
from django.utils.safestring import SafeString, mark_safe
from django.views.debug import ExceptionReporter

from benchdash.redaction import without_secrets

_PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def may_see_debug_pages(request: HttpRequest) -> bool:
    """Staff, logged in, asking for a host this site serves from a loopback address that no proxy passed on."""
    return _from_this_machine(request) and _for_a_served_host(request) and _is_staff(request)


def _from_this_machine(request: HttpRequest) -> bool:
    if any(header in request.META for header in _PROXY_HEADERS):
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


def _for_a_served_host(request: HttpRequest) -> bool:
    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True


def _is_staff(request: HttpRequest) -> bool:
    """False before AuthenticationMiddleware ran (no request.user), and when the store that holds sessions fails."""
    user = getattr(request, "user", None)
    try:
        return bool(user is not None and user.is_active and user.is_staff)
    except DatabaseError:
        return False


def _plain_page(request: HttpRequest, status: int, exception: BaseException | None = None) -> HttpResponse:
    """The page the site answers with DEBUG off (handler400 / handler404 / handler500)."""
    handler: Callable[..., HttpResponse] = get_resolver().resolve_error_handler(status)
    return handler(request) if status == 500 else handler(request, exception or Http404())


class GuardedExceptionReporter(ExceptionReporter):
    """The 500 (and, for a suspicious request, 400) debug page for staff on this machine, and error mails to the
    admins, both without secrets; the plain page for everyone else."""

    def _guarded(self) -> bool:
        return not self.is_email and self.request is not None and not may_see_debug_pages(self.request)

    def _status(self) -> int:
        return 400 if isinstance(self.exc_value, SuspiciousOperation) else 500

    def get_traceback_html(self) -> SafeString:
        if self.request is not None and self._guarded():
            page = _plain_page(self.request, self._status(), self.exc_value)
            # The site's own page, rendered from its template: safe as it stands.
            return mark_safe(page.content.decode())  # noqa: S308
        return mark_safe(without_secrets(super().get_traceback_html()))  # noqa: S308

    def get_traceback_text(self) -> SafeString:
        if self._guarded():
            return mark_safe("Bad Request (400)\n" if self._status() == 400 else "Server Error (500)\n")  # noqa: S308
        return mark_safe(without_secrets(super().get_traceback_text()))  # noqa: S308


class DebugPagesForThisMachineOnly:
    """The 404 debug page (the URL patterns, the settings module) for staff on this machine only."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # No URL matched: Django answered with its debug 404 before any view or process_exception ran.
        if settings.DEBUG and response.status_code == 404 and request.resolver_match is None:
            return response if may_see_debug_pages(request) else _plain_page(request, 404)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG and isinstance(exception, Http404) and not may_see_debug_pages(request):
            return _plain_page(request, 404, exception)
        return None
