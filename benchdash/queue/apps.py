from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QueueConfig(AppConfig):
    name = "benchdash.queue"
    verbose_name = _("Queue")

    def ready(self) -> None:
        from benchdash.queue.dispatch import send_trial_task
        from benchdash.studies.lifecycle.signals import trial_due

        trial_due.connect(send_trial_task, dispatch_uid="benchdash.queue.send_trial_task")
