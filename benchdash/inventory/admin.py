from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from benchdash.inventory.host_facts import host_facts_read_after_commit
from benchdash.inventory.models import Build, Host


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
