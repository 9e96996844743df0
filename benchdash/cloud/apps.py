from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CloudConfig(AppConfig):
    name = "benchdash.cloud"
    verbose_name = _("Cloud")

    def ready(self) -> None:
        from benchdash.cloud.study_end import send_terminate_instances
        from benchdash.studies.lifecycle.signals import study_ended

        study_ended.connect(send_terminate_instances, dispatch_uid="benchdash.cloud.send_terminate_instances")
