from django.urls import path

from benchdash.access import read_access
from benchdash.changes import views
from benchdash.changes.feeds import NewChangesFeed

app_name = "changes"
urlpatterns = [
    path("", views.change_list, name="list"),
    path("feed.atom", read_access(NewChangesFeed()), name="feed"),
    path("<int:pk>/", views.change_detail, name="detail"),
    path("<int:pk>/acknowledge/", views.change_acknowledge_view, name="acknowledge"),
    path("minors/<int:study_id>/", views.minor_series, name="minors"),
]
