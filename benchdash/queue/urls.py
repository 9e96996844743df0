from django.urls import path

from benchdash.queue import views

app_name = "queue"
urlpatterns = [
    path("hosts/<int:pk>/noise-check/", views.host_noise_check, name="host_noise_check"),
]
