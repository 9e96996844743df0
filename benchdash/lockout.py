"""The page for a login refused after too many failures (django-axes calls it: AXES_LOCKOUT_CALLABLE)."""

from typing import Any

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

TOO_MANY_REQUESTS = 429


def locked_out_page(request: HttpRequest, original_response: HttpResponse | None, credentials: Any) -> HttpResponse:
    """The site's page in the visitor's language, saying for how long and who can unlock the account sooner."""
    cool_off = get_cool_off(request)
    minutes = round(cool_off.total_seconds() / 60) if cool_off else 0
    return render(request, "registration/locked_out.html", {"minutes": minutes}, status=TOO_MANY_REQUESTS)
