from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("benchdash.trends.urls")),
    path("studies/", include("benchdash.studies.urls")),
    path("", include("benchdash.inventory.urls")),
] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
