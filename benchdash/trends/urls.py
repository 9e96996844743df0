from django.urls import path

from benchdash.trends import views, views_csv

app_name = "trends"
urlpatterns = [
    path("", views.index, name="index"),
    path("trends.csv", views_csv.trends_csv, name="csv"),
]
