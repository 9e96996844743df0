from django.urls import path

from benchdash.alerts import views

app_name = "alerts"
urlpatterns = [
    path("", views.subscription_list, name="list"),
    path("<int:pk>/delete/", views.subscription_delete, name="delete"),
]
