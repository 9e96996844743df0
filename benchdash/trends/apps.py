from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrendsConfig(AppConfig):
    name = "benchdash.trends"
    verbose_name = _("Trends")
