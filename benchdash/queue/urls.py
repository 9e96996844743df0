from django.urls import path

from benchdash.queue import views

app_name = "queue"
urlpatterns = [
    path("hosts/<int:pk>/noise-check/", views.host_noise_check, name="host_noise_check"),
    path("hosts/<int:pk>/clear-work-dir/", views.host_clear_work_dir, name="host_clear_work_dir"),
]
