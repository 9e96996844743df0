from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class InventoryConfig(AppConfig):
    name = "benchdash.inventory"
    verbose_name = _("Inventory")
