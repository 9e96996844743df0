"""Embedded charts at stable addresses (docs/PAGES.md, "Embedded charts"): a study's chart of a scenario, the trends'
index of a scenario, each as PNG, SVG and an iframe page, `?lang=ja|en`.

The images answer 401 to a reader who may not read (public reading off, no session, no token): a wiki's server fetches
them and cannot follow a login page. The iframe page is a page: it sends such a reader to log in. Only these views
may be framed by another site (xframe_options_exempt); every other page keeps X-Frame-Options: DENY.
"""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET, require_safe

from benchdash.access import read_access
from benchdash.api.tokens import reader_allowed, unauthorized
from benchdash.reports.embeds import Embed, study_embed, trend_embed
from benchdash.studies.models import Study

LANGUAGES = ("ja", "en")
IMAGE_TYPES = {"png": "image/png", "svg": "image/svg+xml"}


@require_safe  # HEAD too: a wiki may ask whether the image changed
@login_not_required
def study_chart_image(request: HttpRequest, pk: int, scenario: str, extension: str) -> HttpResponseBase:
    if not reader_allowed(request):
        return unauthorized()
    return _image(request, extension, _study_embed_of(pk, scenario))


@require_safe
@login_not_required
def trend_chart_image(request: HttpRequest, scenario: str, extension: str) -> HttpResponseBase:
    if not reader_allowed(request):
        return unauthorized()
    return _image(request, extension, _trend_embed_of(scenario))


@require_GET
@xframe_options_exempt
@read_access
def study_chart_frame(request: HttpRequest, pk: int, scenario: str) -> HttpResponse:
    return _frame(request, _study_embed_of(pk, scenario))


@require_GET
@xframe_options_exempt
@read_access
def trend_chart_frame(request: HttpRequest, scenario: str) -> HttpResponse:
    return _frame(request, _trend_embed_of(scenario))


def _study_embed_of(pk: int, scenario: str) -> Callable[[HttpRequest], Embed]:
    def embed_of(request: HttpRequest) -> Embed:
        study = get_object_or_404(Study.objects.select_related("db_host"), pk=pk)
        page = request.build_absolute_uri(reverse("studies:detail", args=[pk]))
        return _found(study_embed(study, scenario, page_url=page))

    return embed_of


def _trend_embed_of(scenario: str) -> Callable[[HttpRequest], Embed]:
    def embed_of(request: HttpRequest) -> Embed:
        page = request.build_absolute_uri(reverse("trends:index")) + f"#trend-{scenario}"
        return _found(trend_embed(scenario, page_url=page))

    return embed_of


def _language(request: HttpRequest) -> str | None:
    """?lang=ja|en, else the reader's language; None for any other value."""
    language = request.GET.get("lang") or (translation.get_language() or settings.LANGUAGE_CODE)[:2]
    return language if language in LANGUAGES else None


def _found(embed: Embed | None) -> Embed:
    if embed is None:
        raise Http404("no such chart: the scenario has no figures here")
    return embed


def _image(request: HttpRequest, extension: str, embed_of: Callable[[HttpRequest], Embed]) -> HttpResponseBase:
    language = _language(request)
    if language is None:
        return HttpResponseBadRequest("lang: ja or en")
    with translation.override(language):
        embed = embed_of(request)
        etag, modified = f'"{embed.etag(f"{extension}-{language}")}"', embed.last_change.timestamp()
        unchanged = get_conditional_response(request, etag=etag, last_modified=int(modified))
        if unchanged is not None:
            return unchanged
        response = HttpResponse(_rendered(embed, extension), content_type=IMAGE_TYPES[extension])
    response["ETag"], response["Last-Modified"] = etag, http_date(modified)
    # Asked again each time, answered 304 while nothing drawn changed: a wiki refetches cheaply and never stale.
    patch_cache_control(response, no_cache=True, private=not settings.PUBLIC_READ)
    return response


def _rendered(embed: Embed, extension: str) -> bytes:
    # Imported on use: ReportLab's renderers cost every process that loads the URLs a fifth of a second at its start.
    from benchdash.reports.embed_render import embed_png, embed_svg

    return embed_png(embed) if extension == "png" else embed_svg(embed)


def _frame(request: HttpRequest, embed_of: Callable[[HttpRequest], Embed]) -> HttpResponse:
    language = _language(request)
    if language is None:
        return HttpResponseBadRequest("lang: ja or en")
    with translation.override(language):
        ctx = {"embed": embed_of(request), "language": language}
        return render(request, "reports/embed.html", ctx)
