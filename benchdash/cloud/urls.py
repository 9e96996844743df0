from django.urls import path

from benchdash.cloud import views

app_name = "cloud"
urlpatterns = [path("new/", views.cloud_study_new, name="new")]
