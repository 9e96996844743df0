from django.urls import path

from benchdash.studies import views, views_csv, views_evidence, views_evidence_data, views_report, views_run

app_name = "studies"
urlpatterns = [
    path("", views.study_list, name="list"),
    path("<int:pk>/", views.study_detail, name="detail"),
    path("<int:pk>/trials.csv", views_csv.trials_csv, name="trials_csv"),
    path("<int:pk>/summary.csv", views_csv.summary_csv, name="summary_csv"),
    path("new/", views_run.study_new, name="new"),
    path("<int:pk>/cancel/", views_run.study_cancel, name="cancel"),
    path("<int:pk>/retry-failed/", views_run.study_retry_failed, name="retry_failed"),
    path("<int:pk>/official/", views_run.study_official, name="official"),
    path("<int:pk>/progress.json", views_run.study_progress_json, name="progress"),
    path("<int:pk>/report/", views_report.study_report, name="report"),
    path("<int:pk>/report.csv", views_report.report_csv, name="report_csv"),
    path("<int:pk>/conclusions/", views_report.study_conclusions, name="conclusions"),
    path("<int:pk>/evidence.csv", views_evidence_data.evidence_csv, name="evidence_csv"),
    path("<int:pk>/wait-events.csv", views_evidence_data.wait_events_csv, name="wait_events_csv"),
    path("<int:pk>/perf.csv", views_evidence_data.perf_csv, name="perf_csv"),
    path("<int:pk>/evidence.json", views_evidence_data.evidence_json, name="evidence_json"),
    path("trials/<int:pk>/", views_evidence.trial_detail, name="trial"),
    path("trials/<int:pk>/series.csv", views_evidence_data.trial_series_csv, name="trial_series_csv"),
    path("trials/<int:pk>/evidence.json", views_evidence_data.trial_evidence_json, name="trial_evidence_json"),
    path("artifacts/<int:pk>/", views_evidence.artifact_download, name="artifact"),
]
