from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChangesConfig(AppConfig):
    name = "benchdash.changes"
    verbose_name = _("Changes")

    def ready(self) -> None:
        from benchdash.changes.bisects import bisect_after_study_end
        from benchdash.studies.lifecycle.signals import study_ended

        study_ended.connect(bisect_after_study_end, dispatch_uid="benchdash.changes.bisect_after_study_end")
