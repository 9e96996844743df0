from django.urls import path

from benchdash.inventory import views

app_name = "inventory"
urlpatterns = [
    path("hosts/", views.hosts, name="hosts"),
    path("hosts/<int:pk>/", views.host_detail, name="host_detail"),
    path("builds/", views.builds, name="builds"),
]
