"""The site's URLs and error handlers plus one page that fails, for the tests of the 500 page."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from benchdash import urls as site_urls


def broken_page(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


urlpatterns = [path("broken/", broken_page), *site_urls.urlpatterns]
handler500 = site_urls.handler500
