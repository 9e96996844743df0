from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QueueConfig(AppConfig):
    name = "benchdash.queue"
    verbose_name = _("Queue")

    def ready(self) -> None:
        from benchdash.alerts.signals import alert_due
        from benchdash.changes.signals import changes_found
        from benchdash.inventory.host_facts import host_facts_wanted
        from benchdash.queue.alerts import send_alert_task, send_change_alerts, send_study_alerts
        from benchdash.queue.changes import send_changes_refresh
        from benchdash.queue.dispatch import send_trial_task
        from benchdash.queue.host_facts import send_read_host_facts
        from benchdash.queue.study_end import send_advance_bisect, send_clear_study_clusters, send_evaluate_calibration
        from benchdash.studies.lifecycle.signals import series_changed, study_ended, trial_due

        trial_due.connect(send_trial_task, dispatch_uid="benchdash.queue.send_trial_task")
        study_ended.connect(send_clear_study_clusters, dispatch_uid="benchdash.queue.send_clear_study_clusters")
        host_facts_wanted.connect(send_read_host_facts, dispatch_uid="benchdash.queue.send_read_host_facts")
        study_ended.connect(send_changes_refresh, dispatch_uid="benchdash.queue.send_changes_refresh")
        study_ended.connect(send_advance_bisect, dispatch_uid="benchdash.queue.send_advance_bisect")
        study_ended.connect(send_evaluate_calibration, dispatch_uid="benchdash.queue.send_evaluate_calibration")
        series_changed.connect(send_changes_refresh, dispatch_uid="benchdash.queue.send_changes_refresh_series")
        changes_found.connect(send_change_alerts, dispatch_uid="benchdash.queue.send_change_alerts")
        study_ended.connect(send_study_alerts, dispatch_uid="benchdash.queue.send_study_alerts")
        series_changed.connect(send_study_alerts, dispatch_uid="benchdash.queue.send_study_alerts_official")
        alert_due.connect(send_alert_task, dispatch_uid="benchdash.queue.send_alert_task")
