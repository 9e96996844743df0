from django.urls import path, re_path

from benchdash.trends import views, views_csv

app_name = "trends"
urlpatterns = [
    path("", views.index, name="index"),
    path("trends.csv", views_csv.trends_csv, name="csv"),
    re_path(r"^versions/(?P<version>\d+(?:\.\d+){0,2})/$", views.version, name="version"),
]
