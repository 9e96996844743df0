from django.urls import path

from benchdash.changes import views, views_bisect
from benchdash.changes.feeds import feed_view

app_name = "changes"
urlpatterns = [
    path("", views.change_list, name="list"),
    path("feed.atom", feed_view, name="feed"),
    path("<int:pk>/", views.change_detail, name="detail"),
    path("<int:pk>/acknowledge/", views.change_acknowledge_view, name="acknowledge"),
    path("minors/<int:study_id>/", views.minor_series, name="minors"),
    path("<int:pk>/bisect/", views_bisect.bisect_from_change, name="bisect_from_change"),
    path("bisects/new/", views_bisect.bisect_new, name="bisect_new"),
    path("bisects/<int:pk>/", views_bisect.bisect_detail, name="bisect"),
]
