from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.i18n import set_language


@login_not_required
def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers ask /favicon.ico of a page that names no icon (the API's docs): the site's one icon."""
    return HttpResponseRedirect(static("favicon.svg"))


# Raw trial files are served by studies:artifact, which checks read access: never from /media/ (nothing here serves
# MEDIA_ROOT, and whitenoise serves STATIC_ROOT only).
urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("accounts/", include("benchdash.account_urls")),
    # Open with BENCHDASH_PUBLIC_READ off too, so that the login page can switch its language.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("", include("benchdash.trends.urls")),
    path("studies/", include("benchdash.studies.urls")),
    path("changes/", include("benchdash.changes.urls")),
    path("compare/", include("benchdash.changes.compare_urls")),
    path("alerts/", include("benchdash.alerts.urls")),
    path("reports/", include("benchdash.reports.urls")),
    path("embed/", include("benchdash.reports.embed_urls")),
    path("studies/cloud/", include("benchdash.cloud.urls")),
    path("", include("benchdash.inventory.urls")),
    path("", include("benchdash.queue.urls")),
    path("", include("benchdash.api.urls")),
]

handler500 = "benchdash.errors.server_error"
