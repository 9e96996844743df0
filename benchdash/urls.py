from django.contrib import admin
from django.urls import include, path

# Raw trial files are served by studies:artifact, which checks read access: never from /media/.
urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("benchdash.trends.urls")),
    path("studies/", include("benchdash.studies.urls")),
    path("", include("benchdash.inventory.urls")),
]
