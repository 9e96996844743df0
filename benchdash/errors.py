"""The server-error page, with the site's navigation in the visitor's language."""

from django.http import HttpRequest, HttpResponseServerError
from django.middleware.csrf import get_token
from django.template import loader


def server_error(request: HttpRequest) -> HttpResponseServerError:
    """templates/500.html without the context processors: they may need the store, which may be what just failed.

    The request (for the navigation) and the CSRF token (for the language switcher) need nothing but the request.
    """
    template = loader.get_template("500.html")
    return HttpResponseServerError(template.render({"request": request, "csrf_token": get_token(request)}))
