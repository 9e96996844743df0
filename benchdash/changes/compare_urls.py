from django.urls import path

from benchdash.changes import views_compare

app_name = "compare"
urlpatterns = [path("", views_compare.compare_sides, name="sides")]
