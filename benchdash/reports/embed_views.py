"""Embedded charts at stable addresses (docs/PAGES.md, "Embedded charts"): every chart of the registry
(embed_registry.py) as PNG, SVG and an iframe page, `?lang=ja|en`, `?zoom=x0,x1,y0,y1`, and the chart's own state.

The images answer 401 to a reader who may not read (public reading off, no session, no token): a wiki's server fetches
them and cannot follow a login page. The iframe page is a page: it sends such a reader to log in. Only these views
may be framed by another site (xframe_options_exempt); every other page keeps X-Frame-Options: DENY.
"""

import math
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseBase
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET, require_safe

from benchdash.access import read_access
from benchdash.api.tokens import unauthorized
from benchdash.reports.embed_registry import EmbeddableChart
from benchdash.reports.embeds import Embed, EmbedRefused

LANGUAGES = ("ja", "en")
IMAGE_TYPES = {"png": "image/png", "svg": "image/svg+xml"}
OWN_PARAMETERS = ("lang", "zoom")


@require_safe  # HEAD too: a wiki may ask whether the image changed
@login_not_required
def chart_image(request: HttpRequest, chart: EmbeddableChart, extension: str, **route: Any) -> HttpResponseBase:
    if not chart.allowed(request):
        return unauthorized()
    asked = _asked(request, chart, route)
    if isinstance(asked, HttpResponse):
        return asked
    embed, language = asked
    etag, modified = f'"{embed.etag(f"{extension}-{language}")}"', embed.last_change.timestamp()
    unchanged = get_conditional_response(request, etag=etag, last_modified=int(modified))
    if unchanged is not None:
        return unchanged
    response = HttpResponse(_rendered(embed, extension), content_type=IMAGE_TYPES[extension])
    response["ETag"], response["Last-Modified"] = etag, http_date(modified)
    # Asked again each time, answered 304 while nothing drawn changed: a wiki refetches cheaply and never stale.
    patch_cache_control(response, no_cache=True, private=not settings.PUBLIC_READ)
    return response


@require_GET
@xframe_options_exempt
@read_access
def chart_frame(request: HttpRequest, chart: EmbeddableChart, **route: Any) -> HttpResponse:
    if not chart.allowed(request):
        return HttpResponse(status=403)
    asked = _asked(request, chart, route)
    if isinstance(asked, HttpResponse):
        return asked
    embed, language = asked
    with translation.override(language):
        return render(request, "reports/embed.html", {"embed": embed, "language": language})


def _asked(request: HttpRequest, chart: EmbeddableChart, route: dict[str, Any]) -> tuple[Embed, str] | HttpResponse:
    """The chart in the language asked for (its texts and stamp made in it), or why it cannot be drawn: a 400."""
    language = _language(request)
    if language is None:
        return HttpResponseBadRequest("lang: ja or en")
    with translation.override(language):
        try:
            return _embed(request, chart, route), language
        except EmbedRefused as refused:
            return HttpResponseBadRequest(str(refused))


def _embed(request: HttpRequest, chart: EmbeddableChart, route: dict[str, Any]) -> Embed:
    """The chart, at the zoom asked for, its page's address made absolute for the stamp."""
    state = {name: value for name, value in request.GET.items() if name not in OWN_PARAMETERS}
    embed = chart.build(**route, state=state)
    if embed is None:
        raise Http404("no such chart: nothing of it is drawn here")
    zoom = request.GET.get("zoom")
    embed = embed.zoomed(_zoom(zoom)) if zoom else embed
    return replace(embed, page=request.build_absolute_uri(embed.page))


def _zoom(text: str) -> tuple[float, float, float, float]:
    try:
        numbers = [float(part) for part in text.split(",")]
    except ValueError:
        numbers = []
    if (
        len(numbers) != 4
        or not all(map(math.isfinite, numbers))
        or numbers[0] >= numbers[1]
        or numbers[2] >= numbers[3]
    ):
        raise EmbedRefused("zoom: four numbers x0,x1,y0,y1 with x0 < x1 and y0 < y1")
    return numbers[0], numbers[1], numbers[2], numbers[3]


def _language(request: HttpRequest) -> str | None:
    """?lang=ja|en, else the reader's language; None for any other value."""
    language = request.GET.get("lang") or (translation.get_language() or settings.LANGUAGE_CODE)[:2]
    return language if language in LANGUAGES else None


def _rendered(embed: Embed, extension: str) -> bytes:
    # Imported on use: ReportLab's renderers cost every process that loads the URLs a fifth of a second at its start.
    from benchdash.reports.embed_render import embed_png, embed_svg

    return embed_png(embed) if extension == "png" else embed_svg(embed)
