from django.urls import path

app_name = "trends"
urlpatterns: list = []
