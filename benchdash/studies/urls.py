from django.urls import path

app_name = "studies"
urlpatterns: list = []
