"""What the API answers when a request is wrong, or when the site fails: a short JSON error for bad input (400)
and a missing row (404), the site's own 500 for a failure. Never ninja's answer to a failure with DEBUG on, the
traceback as text, which would go to anyone around the site's guard (benchdash/debug_guard.py)."""

from functools import partial

from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import ValidationError


def install_error_handlers(api: NinjaAPI) -> None:
    api.add_exception_handler(ValidationError, partial(_bad_input, api=api))
    api.add_exception_handler(Http404, partial(_not_found, api=api))
    api.add_exception_handler(Exception, _failure)


def _bad_input(request: HttpRequest, exc: ValidationError, *, api: NinjaAPI) -> HttpResponse:
    """400 and one line per parameter, by name (pydantic's messages never repeat the value: it may hold anything)."""
    problems = [f"{error['loc'][-1]}: {error['msg']}" for error in exc.errors]
    return api.create_response(request, {"detail": "; ".join(problems)}, status=400)


def _not_found(request: HttpRequest, exc: Http404, *, api: NinjaAPI) -> HttpResponse:
    """The same 404 with DEBUG on or off: ninja would add the exception's text, which names the model."""
    return api.create_response(request, {"detail": "Not Found"}, status=404)


def _failure(request: HttpRequest, exc: Exception | type[Exception]) -> HttpResponse:
    """Django answers, as for any page: logged, mailed to the admins, the site's 500 (or the guarded debug page)."""
    raise exc
