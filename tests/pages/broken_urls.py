"""The site's URLs and error handlers plus pages that fail, for the tests of the 500 page."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import path

from benchdash import urls as site_urls


def broken_page(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


def broken_page_naming_the_broker(request: HttpRequest) -> HttpResponse:
    """Fails with the broker's URL, password included, in its message and in a local variable."""
    broker = settings.CELERY_BROKER_URL
    raise ConnectionError(f"cannot reach {broker}")


urlpatterns = [
    path("broken/", broken_page),
    path("broken-broker/", broken_page_naming_the_broker),
    *site_urls.urlpatterns,
]
handler500 = site_urls.handler500
