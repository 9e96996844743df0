from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChangesConfig(AppConfig):
    name = "benchdash.changes"
    verbose_name = _("Changes")

    def ready(self) -> None:
        from benchdash.changes.queries import index_change_marks
        from benchdash.trends.change_marks import change_marks_wanted

        change_marks_wanted.connect(index_change_marks, dispatch_uid="benchdash.changes.index_change_marks")
