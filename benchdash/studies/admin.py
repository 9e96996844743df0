from django.contrib import admin

from benchdash.studies.models import Artifact, Scenario, Study, StudyPreset, Trial


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = [
        "slug",
        "name",
        "builtin",
        "scale",
        "fillfactor",
        "reset",
        "thread_rule",
        "protocol",
    ]
    list_filter = ["builtin", "reset", "thread_rule", "protocol"]
    search_fields = ["slug", "name", "description", "script"]


@admin.register(StudyPreset)
class StudyPresetAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "client_levels", "repetitions", "duration_s", "scale"]
    search_fields = ["slug", "name", "source"]
    filter_horizontal = ["scenarios"]


class TrialInline(admin.TabularInline):
    model = Trial
    extra = 0
    fields = readonly_fields = ("position", "build", "scenario", "clients", "repetition", "status", "tps", "attempts")
    show_change_link = True
    can_delete = False


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["title", "year", "kind", "status", "db_host", "baseline", "created_at"]
    list_filter = ["kind", "status", "year", "db_host"]
    search_fields = ["title", "source", "hardware", "notes"]
    filter_horizontal = ["builds", "scenarios"]
    readonly_fields = ["created_at", "started_at", "finished_at", "created_by"]
    inlines = [TrialInline]


class ArtifactInline(admin.TabularInline):
    model = Artifact
    extra = 0
    readonly_fields = ["kind", "file", "size", "created_at"]


@admin.register(Trial)
class TrialAdmin(admin.ModelAdmin):
    list_display = [
        "study",
        "position",
        "build",
        "scenario",
        "clients",
        "repetition",
        "status",
        "tps",
        "attempts",
    ]
    list_filter = ["status", "published", "scenario", "build", "study__year"]
    search_fields = ["study__title", "command", "error", "notes"]
    list_select_related = ["study", "build", "scenario"]
    raw_id_fields = ["study"]
    inlines = [ArtifactInline]


@admin.register(Artifact)
class ArtifactAdmin(admin.ModelAdmin):
    list_display = ["trial", "kind", "size", "created_at"]
    list_filter = ["kind"]
    raw_id_fields = ["trial"]
