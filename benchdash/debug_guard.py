"""With DEBUG on (`make run`, development), a debug page still goes only to a visitor on this machine.

A debug page shows the settings (the store's and Redis's URLs) and the code around an error; anyone else gets the
site's plain 404 and 500 pages, as with DEBUG off. "On this machine" means a loopback address and no proxy
header: behind a reverse proxy every request comes from 127.0.0.1, and X-Forwarded-For says it is someone else's.
"""

import ipaddress
from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import get_resolver
from django.utils.safestring import SafeString, mark_safe
from django.views.debug import ExceptionReporter

_PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def may_see_debug_pages(request: HttpRequest) -> bool:
    """A request from a loopback address that no proxy passed on."""
    if any(header in request.META for header in _PROXY_HEADERS):
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


def _plain_page(request: HttpRequest, status: int, exception: Exception | None = None) -> HttpResponse:
    """The page the site answers with DEBUG off (handler404 / handler500)."""
    handler: Callable[..., HttpResponse] = get_resolver().resolve_error_handler(status)
    return handler(request) if status == 500 else handler(request, exception or Http404())


class GuardedExceptionReporter(ExceptionReporter):
    """The 500 debug page for a visitor on this machine (and in mails to the admins); the plain page otherwise."""

    def _guarded(self) -> bool:
        return not self.is_email and self.request is not None and not may_see_debug_pages(self.request)

    def get_traceback_html(self) -> SafeString:
        if self.request is not None and self._guarded():
            # The site's own page, rendered from its template: safe as it stands.
            return mark_safe(_plain_page(self.request, 500).content.decode())  # noqa: S308
        return super().get_traceback_html()

    def get_traceback_text(self) -> SafeString:
        return mark_safe("Server Error (500)\n") if self._guarded() else super().get_traceback_text()  # noqa: S308


class DebugPagesForThisMachineOnly:
    """The 404 debug page (the URL patterns, the settings module) for a visitor on this machine only."""

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
