from typing import Any

from django import forms
from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from benchdash.studies import admin_roles  # noqa: F401 (the roles under translated names)
from benchdash.studies.fields import ClientLevelsField, SettingsField, WholeNumberField
from benchdash.studies.models import Artifact, Attempt, Scenario, Study, StudyPreset, Trial, TrialEvidence, Variant
from benchdash.studies.pg_settings import every_major_problems
from benchdash.studies.results.store import points_refresh_keys, trial_point_keys
from benchdash.studies.threads import threads_choice
from benchdash.studies.validation import check_study
from benchdash.studies.variant_checks import variant_problems


def _label(model: type[models.Model], name: str) -> str:
    return str(getattr(model._meta.get_field(name), "verbose_name", name))


class StudyAdminForm(forms.ModelForm):
    """The admin edits a study with the new-study form's fields and checks (validation.check_study): staff
    may widen the settings allowlist in settings.py, never for one study."""

    client_levels = ClientLevelsField(label=_label(Study, "client_levels"), required=False)
    pg_settings = SettingsField(label=_label(Study, "pg_settings"), required=False)
    year = WholeNumberField(label=_label(Study, "year"), min_value=1990, max_value=2100)
    repetitions = WholeNumberField(label=_label(Study, "repetitions"), min_value=1, max_value=20)
    duration_s = WholeNumberField(label=_label(Study, "duration_s"), min_value=1)
    scale = WholeNumberField(label=_label(Study, "scale"), min_value=1)
    fillfactor = WholeNumberField(label=_label(Study, "fillfactor"), min_value=10, max_value=100, required=False)
    seed = WholeNumberField(label=_label(Study, "seed"), min_value=0)

    class Meta:
        model = Study
        fields = [
            "title",
            "year",
            "kind",
            "status",
            "source",
            "hardware",
            "os",
            "statistic",
            "db_host",
            "client_host",
            "builds",
            "baseline",
            "scenarios",
            "client_levels",
            "repetitions",
            "duration_s",
            "scale",
            "fillfactor",
            "threads",
            "pgbench_vacuum",
            "pgbench_build",
            "pg_settings",
            "collect_sar",
            "collect_perf",
            "collect_wait_events",
            "keep_data",
            "seed",
            "notes",
            "conclusions",
        ]

    def clean_threads(self) -> str:
        return threads_choice(self.cleaned_data.get("threads") or "")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # A published study never runs: its settings are only checked by their field.
        if cleaned.get("kind") == Study.Kind.MEASURED:
            check_study(cleaned, self.add_error)
        return cleaned


class StudyPresetAdminForm(forms.ModelForm):
    """A preset's settings go into new studies' forms: the same allowlist, and values every major takes."""

    client_levels = ClientLevelsField(label=_label(StudyPreset, "client_levels"))
    pg_settings = SettingsField(label=_label(StudyPreset, "pg_settings"), required=False)

    class Meta:
        model = StudyPreset
        fields = [
            "slug",
            "name",
            "scenarios",
            "client_levels",
            "repetitions",
            "duration_s",
            "scale",
            "pg_settings",
            "source",
        ]

    def clean_pg_settings(self) -> dict[str, str]:
        pg_settings = self.cleaned_data["pg_settings"]
        problems = every_major_problems(pg_settings)
        if problems:
            raise forms.ValidationError(problems)
        return pg_settings


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = [
        "slug",
        "name",
        "builtin",
        "scale",
        "fillfactor",
        "reset",
        "prewarm",
        "checkpoint_vacuum",
        "reset_vacuum_full",
        "thread_rule",
        "protocol",
    ]
    list_filter = ["builtin", "reset", "prewarm", "thread_rule", "protocol"]
    search_fields = ["slug", "name", "description", "script"]


@admin.register(StudyPreset)
class StudyPresetAdmin(admin.ModelAdmin):
    form = StudyPresetAdminForm
    list_display = ["slug", "name", "client_levels", "repetitions", "run_order", "duration_s", "scale"]
    search_fields = ["slug", "name", "source", "procedure"]
    filter_horizontal = ["scenarios"]


VARIANT_FIELDS = (
    "position",
    "label",
    "build",
    "baseline",
    "db_host",
    "data_checksums",
    "wal_segment_mb",
    "locale",
    "encoding",
    "wal_dir",
    "cpus",
    "fillfactor",
    "transactions",
    "connect_each_transaction",
    "load",
    "pg_settings",
)


# What check_study reads of a study, beside its scenarios.
STUDY_CHECKED = ("db_host", "pg_settings", "client_levels", "duration_s", "scale", "fillfactor", "seed")


class VariantAdminForm(forms.ModelForm):
    """A variant in the admin gets the checks the new-study form gives it (variant_checks.variant_problems)."""

    pg_settings = SettingsField(label=_label(Variant, "pg_settings"), required=False)

    class Meta:
        model = Variant
        fields = VARIANT_FIELDS

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        study = Study.objects.filter(pk=self.instance.study_id).select_related("db_host").first()
        if study is None or not cleaned.get("build"):
            return cleaned
        variant = Variant(**{name: value for name, value in cleaned.items() if name not in ("id", "DELETE")})
        study_values = {name: getattr(study, name) for name in STUDY_CHECKED}
        for problem in variant_problems(variant, {**study_values, "scenarios": list(study.scenarios.all())}):
            self.add_error(None, problem)
        return cleaned


class VariantFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        """At most one baseline (the store refuses a second one; this says so at the field)."""
        super().clean()
        kept = [form for form in self.forms if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        if sum(bool(form.cleaned_data.get("baseline")) for form in kept) > 1:
            raise forms.ValidationError(_("One variant is the baseline."))


class VariantInline(admin.TabularInline):
    model = Variant
    form = VariantAdminForm
    formset = VariantFormSet
    extra = 0
    fields = VARIANT_FIELDS


class TrialInline(admin.TabularInline):
    model = Trial
    extra = 0
    fields = readonly_fields = (
        "position",
        "build",
        "variant",
        "scenario",
        "clients",
        "repetition",
        "warmup",
        "status",
        "tps",
        "attempts",
    )
    show_change_link = True
    can_delete = False


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    form = StudyAdminForm
    list_display = ["title", "year", "kind", "status", "official", "run_order", "db_host", "baseline", "created_at"]
    list_filter = ["kind", "status", "official", "year", "db_host"]
    search_fields = ["title", "source", "hardware", "notes"]
    filter_horizontal = ["builds", "scenarios"]
    # Official only through the study page's screen, which shows the study's quality first (studies/quality.py).
    readonly_fields = [
        "created_at",
        "started_at",
        "finished_at",
        "created_by",
        "official",
        "official_by",
        "official_at",
        "official_reason",
    ]
    inlines = [VariantInline, TrialInline]


class ArtifactLink:
    @admin.display(description=_("file"))
    def download(self, artifact: Artifact) -> str:
        """Through the download view, which checks read access: never a /media/ URL."""
        if not artifact.pk:
            return "—"
        url = reverse("studies:artifact", args=[artifact.pk])
        return format_html('<a href="{}">{}</a>', url, artifact.download_name)


class ArtifactInline(ArtifactLink, admin.TabularInline):
    model = Artifact
    extra = 0
    fields = readonly_fields = ("kind", "download", "size", "created_at")
    can_delete = False


class AttemptInline(admin.TabularInline):
    """Each try at the trial as it happened: written by the claim and the worker, never by hand."""

    model = Attempt
    extra = 0
    fields = readonly_fields = ("number", "worker", "result", "started_at", "finished_at", "failure_kind", "error")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Trial | None = None) -> bool:
        return False


@admin.register(Trial)
class TrialAdmin(admin.ModelAdmin):
    list_display = [
        "study",
        "position",
        "build",
        "scenario",
        "clients",
        "repetition",
        "warmup",
        "status",
        "tps",
        "attempts",
    ]
    list_filter = ["status", "failure_kind", "published", "warmup", "scenario", "build", "study__year"]
    search_fields = ["study__title", "command", "error", "notes"]
    list_select_related = ["study", "build", "scenario"]
    raw_id_fields = ["study"]
    inlines = [AttemptInline, ArtifactInline]

    # Hand edits keep the study points in step: the point the trial left and the one it is in now.
    def save_model(self, request: HttpRequest, obj: Trial, form: Any, change: bool) -> None:
        before = trial_point_keys(Trial.objects.filter(pk=obj.pk)) if change else set()
        super().save_model(request, obj, form, change)
        points_refresh_keys(before | trial_point_keys(Trial.objects.filter(pk=obj.pk)))

    def delete_model(self, request: HttpRequest, obj: Trial) -> None:
        before = trial_point_keys(Trial.objects.filter(pk=obj.pk))
        super().delete_model(request, obj)
        points_refresh_keys(before)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Trial]) -> None:
        before = trial_point_keys(queryset)
        super().delete_queryset(request, queryset)
        points_refresh_keys(before)


@admin.register(Artifact)
class ArtifactAdmin(ArtifactLink, admin.ModelAdmin):
    list_display = ["trial", "kind", "size", "created_at", "download"]
    list_filter = ["kind"]
    # The file is kept as it came off the target; the form shows it through the download view.
    fields = readonly_fields = ("trial", "kind", "download", "size", "created_at")


@admin.register(TrialEvidence)
class TrialEvidenceAdmin(admin.ModelAdmin):
    list_display = ["trial", "computed_at", "cpu_user", "cpu_system", "cpu_iowait", "wait_samples", "perf_samples"]
    raw_id_fields = ["trial"]
    exclude = ["series", "perf_flame"]
