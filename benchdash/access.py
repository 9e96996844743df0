"""Who may read: reading pages and CSV can be opened to anonymous visitors with settings.PUBLIC_READ."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpRequest, HttpResponseBase

View = Callable[..., HttpResponseBase]


def read_access(view: View) -> View:
    """Let anyone read when PUBLIC_READ is on; otherwise send anonymous visitors to the login page.

    The setting is read on every request (not at import) so that tests can switch it.
    """
    guarded = login_required(view)

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if settings.PUBLIC_READ:
            return view(request, *args, **kwargs)
        return guarded(request, *args, **kwargs)

    return wrapper


class LoginRequiredUnlessPublicRead(LoginRequiredMiddleware):
    """With PUBLIC_READ off, every page but the login's sends an anonymous visitor to log in first.

    Django's LoginRequiredMiddleware, switched by the setting on every request: a page that forgets @read_access
    is closed all the same. The views marked login_not_required stay open: the login page, the admin's own login,
    the language switch (so that the login page can change its language).
    """

    def process_view(
        self, request: HttpRequest, view_func: View, view_args: Any, view_kwargs: Any
    ) -> HttpResponseBase | None:
        if settings.PUBLIC_READ:
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)  # type: ignore[no-any-return]
