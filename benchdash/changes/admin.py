from django.contrib import admin
from django.db import models

from benchdash.changes.models import Acknowledgement, Bisect, BisectStep, ChangePoint


class AcknowledgementInline(admin.StackedInline):
    model = Acknowledgement
    extra = 0
    readonly_fields = ["by", "at"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


@admin.register(ChangePoint)
class ChangePointAdmin(admin.ModelAdmin):
    """Change points are computed (refresh_changes): read here, acknowledged inline or on their page."""

    list_display = ["series_title", "before_label", "after_label", "size_percent", "confidence_percent", "official"]
    list_filter = ["series_kind", "official"]
    search_fields = ["series_title", "series_key"]
    readonly_fields = [field.name for field in ChangePoint._meta.fields]
    inlines = [AcknowledgementInline]

    def has_add_permission(self, request) -> bool:
        return False


class BisectStepInline(admin.TabularInline):
    model = BisectStep
    extra = 0
    readonly_fields = ["number", "study", "low", "compared", "verdict"]
    can_delete = False


@admin.register(Bisect)
class BisectAdmin(admin.ModelAdmin):
    list_display = ["pk", "scenario", "clients", "status", "first_changed", "created_at"]
    list_filter = ["status"]
    readonly_fields = [field.name for field in Bisect._meta.fields]
    inlines = [BisectStepInline]

    def has_add_permission(self, request) -> bool:
        return False
