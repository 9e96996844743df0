"""The new-study form: validates every value at its field and converts it to what the study stores."""

import random
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Scenario, StudyPreset
from benchdash.studies.pg_settings import parse_settings, settings_text
from benchdash.studies.plan import PlannedTrial, estimate_seconds, plan_study

DEFAULT_MAX_CONNECTIONS = 100
DEFAULT_RESERVED_CONNECTIONS = 3
SEED_LIMIT = 2**31


def parse_client_levels(text: str) -> list[int]:
    """'1, 16,32' -> [1, 16, 32]; refuses what is not a positive whole number, and repeats."""
    levels: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part.isdigit() or int(part) < 1:
            raise forms.ValidationError(_("%(value)s is not a positive whole number."), params={"value": part or '""'})
        if int(part) in levels:
            raise forms.ValidationError(_("%(value)s is given twice."), params={"value": part})
        levels.append(int(part))
    return levels


def _connection_limit(pg_settings: dict[str, str]) -> int:
    """max_connections less superuser_reserved_connections: what pgbench clients may use."""
    maximum = int(pg_settings.get("max_connections", DEFAULT_MAX_CONNECTIONS))
    reserved = int(pg_settings.get("superuser_reserved_connections", DEFAULT_RESERVED_CONNECTIONS))
    return maximum - reserved


def build_problem(build: Build) -> str | None:
    """Why this build cannot run anywhere, or None when it can.

    Whether its files are where they should be is the worker's to find out (an installed bin directory
    on the target, an archive on the worker's machine): the web server may be another machine.
    """
    if build.kind == Build.Kind.PUBLISHED:
        return _("%(build)s is a published figure, not a build that can run.") % {"build": build}
    return None


def build_label(build: Build) -> str:
    return f"{build.name} ({build.version}, {build.get_kind_display()})"


class BuildsField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Build) -> str:  # type: ignore[override]
        return build_label(obj)


class StudyForm(forms.Form):
    """Every field of a study to queue. Bound data gets a drawn seed when none was given."""

    title = forms.CharField(label=_("title"), max_length=300)
    year = forms.IntegerField(label=_("year"), min_value=1990, max_value=2100)
    db_host = forms.ModelChoiceField(label=_("DB host"), queryset=Host.objects.all())
    client_host = forms.ModelChoiceField(
        label=_("pgbench host"), queryset=Host.objects.all(), required=False, help_text=_("Empty: the DB host.")
    )
    builds = BuildsField(label=_("builds"), queryset=Build.objects.all(), widget=forms.CheckboxSelectMultiple)
    baseline = forms.ModelChoiceField(label=_("baseline build"), queryset=Build.objects.all())
    scenarios = forms.ModelMultipleChoiceField(
        label=_("scenarios"), queryset=Scenario.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    client_preset = forms.ModelChoiceField(
        label=_("client levels from a preset"), queryset=StudyPreset.objects.all(), required=False
    )
    client_levels = forms.CharField(
        label=_("client levels"), max_length=500, help_text=_("Comma-separated, e.g. 1,16,32.")
    )
    repetitions = forms.IntegerField(label=_("repetitions"), min_value=1, max_value=20, initial=3)
    duration_s = forms.IntegerField(label=_("duration (s)"), min_value=1, max_value=86400, initial=60)
    scale = forms.IntegerField(label=_("scale"), min_value=1, max_value=100000, initial=1)
    fillfactor = forms.IntegerField(
        label=_("fillfactor"),
        min_value=10,
        max_value=100,
        required=False,
        help_text=_("Only for scenarios that set one (the update scenario: 80). Empty: the scenario's own."),
    )
    settings_preset = forms.ModelChoiceField(
        label=_("postgresql.conf from a preset"), queryset=StudyPreset.objects.all(), required=False
    )
    pg_settings = forms.CharField(
        label=_("postgresql.conf settings"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
        help_text=_("One 'name = value' per line."),
    )
    collect_sar = forms.BooleanField(label=_("collect sar"), required=False, initial=True)
    collect_perf = forms.BooleanField(label=_("collect perf"), required=False)
    collect_wait_events = forms.BooleanField(label=_("sample wait events"), required=False, initial=True)
    seed = forms.IntegerField(
        label=_("random seed"), min_value=0, max_value=SEED_LIMIT, required=False, help_text=_("Empty: drawn for you.")
    )

    def __init__(self, data: Any = None, *args: Any, **kwargs: Any) -> None:
        if data is not None:
            data = _with_defaults(data)
        super().__init__(data, *args, **kwargs)
        self.fields["year"].initial = timezone.now().year
        runnable = Build.objects.runnable()
        # Published figures stay valid choices so that picking one is refused with a reason, but are not offered.
        self.fields["builds"].widget.choices = [(build.pk, build_label(build)) for build in runnable]
        self.fields["baseline"].widget.choices = [("", "---------")] + [(build.pk, build.name) for build in runnable]

    def clean_client_levels(self) -> list[int]:
        return parse_client_levels(self.cleaned_data["client_levels"])

    def clean_pg_settings(self) -> dict[str, str]:
        return parse_settings(self.cleaned_data["pg_settings"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("db_host") and cleaned.get("builds") is not None:
            self._check_builds(cleaned)
        if cleaned.get("client_levels") and cleaned.get("pg_settings") is not None:
            self._check_clients_fit(cleaned)
        if cleaned.get("client_levels") and cleaned.get("scale") and cleaned.get("scenarios") is not None:
            self._check_scale(cleaned)
        if cleaned.get("fillfactor") and cleaned.get("scenarios") is not None:
            self._check_fillfactor(cleaned)
        return cleaned

    def _check_builds(self, cleaned: dict[str, Any]) -> None:
        builds, baseline = cleaned["builds"], cleaned.get("baseline")
        if baseline and baseline not in builds:
            self.add_error("baseline", _("The baseline must be one of the chosen builds."))
        for problem in filter(None, (build_problem(build) for build in builds)):
            self.add_error("builds", problem)

    def _check_clients_fit(self, cleaned: dict[str, Any]) -> None:
        try:
            limit = _connection_limit(cleaned["pg_settings"])
        except ValueError:
            self.add_error(
                "pg_settings", _("max_connections and superuser_reserved_connections must be whole numbers.")
            )
            return
        too_many = [level for level in cleaned["client_levels"] if level > limit]
        if too_many:
            message = _("%(levels)s is above max_connections less the reserved connections (%(limit)s).")
            self.add_error("client_levels", message % {"levels": ", ".join(map(str, too_many)), "limit": limit})

    def _check_scale(self, cleaned: dict[str, Any]) -> None:
        tpcb = any(scenario.builtin == Scenario.Builtin.TPCB for scenario in cleaned["scenarios"])
        largest = max(cleaned["client_levels"])
        if tpcb and cleaned["scale"] < largest:
            message = _(
                "TPC-B-like needs a scale of at least the largest client count (%(clients)s): "
                "with fewer branches the clients wait on each other's branch row."
            )
            self.add_error("scale", message % {"clients": largest})

    def _check_fillfactor(self, cleaned: dict[str, Any]) -> None:
        if not any(scenario.fillfactor for scenario in cleaned["scenarios"]):
            self.add_error("fillfactor", _("None of the chosen scenarios sets a fillfactor."))

    def preset_defaults(self) -> dict[int, dict[str, str]]:
        """What picking a preset fills in, for the page's script."""
        return {
            preset.pk: {
                "client_levels": ",".join(map(str, preset.client_levels)),
                "pg_settings": settings_text(preset.pg_settings),
            }
            for preset in StudyPreset.objects.all()
        }

    def planned_trials(self) -> list[PlannedTrial]:
        """The trials this valid form would queue, in run order."""
        cleaned = self.cleaned_data
        return plan_study(
            builds=cleaned["builds"],
            scenarios=cleaned["scenarios"],
            client_levels=cleaned["client_levels"],
            repetitions=cleaned["repetitions"],
            seed=cleaned["seed"],
        )

    def estimated_seconds(self) -> float:
        cleaned = self.cleaned_data
        return estimate_seconds(self.planned_trials(), duration_s=cleaned["duration_s"], scale=cleaned["scale"])

    def preview(self) -> dict[str, float]:
        """What the page shows before queueing: trials, data resets, estimated minutes."""
        planned = self.planned_trials()
        resets = sum(trial.reset_data for trial in planned)
        return {"trials": len(planned), "resets": resets, "minutes": round(self.estimated_seconds() / 60, 1)}


def _with_defaults(data: Any) -> Any:
    """Draw the seed when left empty, and take client levels / settings from the chosen presets when
    their text was left empty (the page's script fills them in; this covers a page without script)."""
    data = data.copy()
    if not str(data.get("seed", "")).strip():
        data["seed"] = str(random.SystemRandom().randrange(SEED_LIMIT))
    client_preset = _preset(data.get("client_preset"))
    if client_preset and not str(data.get("client_levels", "")).strip():
        data["client_levels"] = ",".join(map(str, client_preset.client_levels))
    settings_preset = _preset(data.get("settings_preset"))
    if settings_preset and not str(data.get("pg_settings", "")).strip():
        data["pg_settings"] = settings_text(settings_preset.pg_settings)
    return data


def _preset(raw_id: Any) -> StudyPreset | None:
    if not str(raw_id or "").isdigit():
        return None
    return StudyPreset.objects.filter(pk=int(raw_id)).first()
