from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.host_facts import host_facts_read_after_commit
from benchdash.inventory.models import Build, Event, Host


@admin.register(Host)
class HostAdmin(admin.ModelAdmin):
    list_display = ["name", "address", "port", "username", "cpu_summary", "facts_updated_at", "facts_state"]
    search_fields = ["name", "address", "notes"]
    list_filter = ["port"]
    readonly_fields = ["facts", "facts_updated_at", "facts_state", "facts_error", "created_at"]

    def save_model(self, request: HttpRequest, obj: Host, form: Any, change: bool) -> None:
        """Save, then have a worker read the host's facts once the save commits (no SSH inside the request's
        transaction): the host page says when they are being read, and why reading them failed."""
        super().save_model(request, obj, form, change)
        host_facts_read_after_commit(host=obj)


@admin.register(Build)
class BuildAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "kind", "bin_dir", "archive_path", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "version", "bin_dir", "source_url", "notes"]
    # A source build's digest is taken from its files when it is saved (Build.clean); its configure line and compiler
    # from a compile (`manage.py add_source_build --build-on`).
    readonly_fields = ["version_sort", "source_digest", "configure_line", "compiler", "created_at"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Annotations: each one marked once, drawn on every chart it touches (Event.clean checks the ranges)."""

    list_display = ["text", "where", "link", "created_by", "created_at"]
    list_filter = ["host"]
    search_fields = ["text", "link"]
    readonly_fields = ["created_by", "created_at"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description=_("where it holds"))
    def where(self, obj: Event) -> str:
        return obj.scope()

    def save_model(self, request: HttpRequest, obj: Event, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)
