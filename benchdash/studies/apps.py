from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class StudiesConfig(AppConfig):
    name = "benchdash.studies"
    verbose_name = _("Studies")

    def ready(self) -> None:
        from benchdash.studies.lifecycle.calibration import calibration_ended
        from benchdash.studies.lifecycle.signals import study_ended

        study_ended.connect(calibration_ended, dispatch_uid="benchdash.studies.calibration_ended")
