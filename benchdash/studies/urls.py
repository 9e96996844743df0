from django.urls import path

from benchdash.studies.views import csv, evidence, evidence_data, official, pages, report, run

app_name = "studies"
urlpatterns = [
    path("", pages.study_list, name="list"),
    path("<int:pk>/", pages.study_detail, name="detail"),
    path("<int:pk>/trials.csv", csv.trials_csv, name="trials_csv"),
    path("<int:pk>/summary.csv", csv.summary_csv, name="summary_csv"),
    path("<int:pk>/comparisons.csv", csv.comparisons_csv, name="comparisons_csv"),
    path("<int:pk>/scalability.csv", csv.scalability_csv, name="scalability_csv"),
    path("new/", run.study_new, name="new"),
    path("hosts/<int:pk>/calibrate/", run.host_calibrate, name="host_calibrate"),
    path("<int:pk>/cancel/", run.study_cancel, name="cancel"),
    path("<int:pk>/retry-failed/", run.study_retry_failed, name="retry_failed"),
    path("<int:pk>/official/", official.study_official, name="official"),
    path("<int:pk>/official/confirm/", official.study_official_confirm, name="official_confirm"),
    path("<int:pk>/progress.json", run.study_progress_json, name="progress"),
    path("<int:pk>/report/", report.study_report, name="report"),
    path("<int:pk>/report.csv", report.report_csv, name="report_csv"),
    path("<int:pk>/conclusions/", report.study_conclusions, name="conclusions"),
    path("<int:pk>/evidence.csv", evidence_data.evidence_csv, name="evidence_csv"),
    path("<int:pk>/wait-events.csv", evidence_data.wait_events_csv, name="wait_events_csv"),
    path("<int:pk>/perf.csv", evidence_data.perf_csv, name="perf_csv"),
    path("<int:pk>/table-health.csv", evidence_data.table_health_csv, name="table_health_csv"),
    path("<int:pk>/evidence.json", evidence_data.evidence_json, name="evidence_json"),
    path("trials/<int:pk>/", evidence.trial_detail, name="trial"),
    path("trials/<int:pk>/series.csv", evidence_data.trial_series_csv, name="trial_series_csv"),
    path("trials/<int:pk>/evidence.json", evidence_data.trial_evidence_json, name="trial_evidence_json"),
    path("artifacts/<int:pk>/", evidence.artifact_download, name="artifact"),
]
