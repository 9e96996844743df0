from django.urls import path

from benchdash.studies import views, views_csv, views_run

app_name = "studies"
urlpatterns = [
    path("", views.study_list, name="list"),
    path("<int:pk>/", views.study_detail, name="detail"),
    path("<int:pk>/trials.csv", views_csv.trials_csv, name="trials_csv"),
    path("<int:pk>/summary.csv", views_csv.summary_csv, name="summary_csv"),
    path("new/", views_run.study_new, name="new"),
    path("<int:pk>/cancel/", views_run.study_cancel, name="cancel"),
    path("<int:pk>/retry-failed/", views_run.study_retry_failed, name="retry_failed"),
    path("<int:pk>/progress.json", views_run.study_progress_json, name="progress"),
]
