"""Who may read: reading pages and CSV can be opened to anonymous visitors with settings.PUBLIC_READ."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
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
