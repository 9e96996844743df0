from django.contrib import admin

from benchdash.inventory.models import Build, Host


@admin.register(Host)
class HostAdmin(admin.ModelAdmin):
    list_display = ["name", "address", "port", "username", "cpu_summary", "facts_updated_at"]
    search_fields = ["name", "address", "notes"]
    list_filter = ["port"]
    readonly_fields = ["facts", "facts_updated_at", "created_at"]


@admin.register(Build)
class BuildAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "kind", "bin_dir", "archive_path", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "version", "bin_dir", "notes"]
    readonly_fields = ["version_sort", "created_at"]
