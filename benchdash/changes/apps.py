from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChangesConfig(AppConfig):
    name = "benchdash.changes"
    verbose_name = _("Changes")

    def ready(self) -> None:
        from benchdash.changes.bisects import bisect_after_study_end
        from benchdash.changes.queries import index_change_marks
        from benchdash.studies.lifecycle.signals import study_ended
        from benchdash.trends.change_marks import change_marks_wanted

        study_ended.connect(bisect_after_study_end, dispatch_uid="benchdash.changes.bisect_after_study_end")
        change_marks_wanted.connect(index_change_marks, dispatch_uid="benchdash.changes.index_change_marks")
