"""What trials leave: raw files (artifacts), the study points drawn on the pages, and the evidence of each trial."""

import posixpath

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Build
from benchdash.studies.models.scenario import Scenario
from benchdash.studies.models.study import Study, Trial


class Artifact(models.Model):
    """A raw file a trial produced, kept as it came off the target."""

    class Kind(models.TextChoices):
        PGBENCH_STDOUT = "pgbench_stdout", _("pgbench output")
        PGBENCH_STDERR = "pgbench_stderr", _("pgbench errors")
        PROGRESS = "progress", _("per-second progress")
        SAR = "sar", _("sar data")
        SAR_SERIES = "sar_series", _("sar time series")
        PERF = "perf_folded", _("perf folded stacks")
        WAIT_EVENTS = "wait_events", _("wait-event samples")
        SERVER_LOG = "server_log", _("server log tail")
        SETTINGS = "settings", _("server settings")
        TABLE_HEALTH = "table_health", _("table health before and after")

    trial = models.ForeignKey(Trial, verbose_name=_("trial"), on_delete=models.CASCADE, related_name="artifacts")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    file = models.FileField(_("file"), upload_to="artifacts/%Y/%m/")
    size = models.PositiveBigIntegerField(_("size (bytes)"), default=0)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["trial", "kind"]
        verbose_name = _("artifact")
        verbose_name_plural = _("artifacts")
        constraints = [models.UniqueConstraint(fields=["trial", "kind"], name="artifact_one_per_kind")]

    def __str__(self) -> str:
        return f"{self.trial_id} {self.kind}"

    @property
    def download_name(self) -> str:
        """study-3-trial-41-sar.sa: says whose file it is once it sits in a downloads folder."""
        extension = posixpath.splitext(self.file.name or "")[1] or ".txt"
        return f"study-{self.trial.study_id}-trial-{self.trial_id}-{self.kind}{extension}"

    @property
    def content_type(self) -> str:
        if self.kind == self.Kind.SAR:
            return "application/octet-stream"  # sadc's binary file: read it with sadf
        if (self.file.name or "").endswith(".json"):
            return "application/json"
        return "text/plain; charset=utf-8"


class StudyPoint(models.Model):
    """Median, mean, min, max and n of one build x scenario x clients (x conditions) of a study, over its trials.

    A published figure is its own point: `median` holds the figure (whatever its statistic), min and max are
    unknown, and n is the number of runs its source says stand behind it (the study's repetitions), or unknown.

    Kept by studies/results/store.py wherever trials change (trial_finish, the importer, the admin,
    `manage.py refresh_points`), so that the study and trends pages read a few thousand points instead
    of aggregating every trial on every view.
    """

    study = models.ForeignKey(Study, verbose_name=_("study"), on_delete=models.CASCADE, related_name="points")
    build = models.ForeignKey(Build, verbose_name=_("build"), on_delete=models.CASCADE, related_name="+")
    # The variant of its trials; empty for the points of trials that have none (grouped by build alone).
    variant = models.ForeignKey(
        "studies.Variant", verbose_name=_("variant"), null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    scenario = models.ForeignKey(Scenario, verbose_name=_("scenario"), on_delete=models.CASCADE, related_name="+")
    clients = models.PositiveIntegerField(_("clients"))
    conditions = models.CharField(_("conditions"), max_length=200, blank=True, default="")
    median = models.FloatField(_("median TPS"))
    # The mean of its runs' TPS: the figure of a study whose statistic is the mean. Empty for a published figure.
    mean = models.FloatField(_("mean TPS"), null=True, blank=True)
    minimum = models.FloatField(_("minimum TPS"), null=True, blank=True)
    maximum = models.FloatField(_("maximum TPS"), null=True, blank=True)
    n = models.PositiveIntegerField(_("runs"), null=True, blank=True)
    # Every counted run's TPS, ascending: the spread and the interval of a ratio need the runs themselves.
    # Empty for a published figure.
    runs = ArrayField(models.FloatField(), verbose_name=_("TPS of each run"), default=list, blank=True)
    # The round (the trial's repetition) of each run in `runs`, in the same order: a build's run and the
    # baseline's run of one round are paired by it (studies/results/pooled.py). Empty for a published figure.
    rounds = ArrayField(
        models.PositiveSmallIntegerField(null=True), verbose_name=_("round of each run"), default=list, blank=True
    )

    class Meta:
        ordering = ["study", "scenario", "build", "clients"]
        verbose_name = _("study point")
        verbose_name_plural = _("study points")
        constraints = [
            models.UniqueConstraint(
                fields=["study", "variant", "build", "scenario", "clients", "conditions"],
                nulls_distinct=False,
                name="studypoint_unique_variant_point",
            )
        ]

    def __str__(self) -> str:
        return f"{self.study_id} b={self.build_id} s={self.scenario_id} c={self.clients}: {self.median}"


class TrialEvidence(models.Model):
    """What sar, wait-event sampling, perf and pgbench's progress say about one trial, summarised once.

    Written by studies/evidence/store.py when the trial finishes (and by `manage.py refresh_evidence`
    from the stored artifacts), so that pages aggregate a few figures per trial instead of parsing raw
    files on every view. `series` (the per-second curves) and `perf_flame` are read by the trial page only.
    """

    class State(models.TextChoices):
        OK = "ok", _("collected")
        OFF = "off", _("off for this study")
        NOT_PROFILED = "not_profiled", _("profiled at the first repetition only")
        NO_DATA = "no_data", _("no data")

    trial = models.OneToOneField(
        Trial, verbose_name=_("trial"), primary_key=True, on_delete=models.CASCADE, related_name="evidence"
    )
    computed_at = models.DateTimeField(_("computed"), auto_now=True)
    # collector name (progress, sar, wait_events, perf) -> {"state": State, "reason": why there is no data}
    collectors = models.JSONField(_("collectors"), default=dict)
    progress_seconds = models.PositiveIntegerField(_("seconds of progress"), default=0)
    tps_cv = models.FloatField(_("coefficient of variation of TPS"), null=True, blank=True)
    warmup_s = models.FloatField(_("warm-up (s)"), null=True, blank=True)
    unstable = models.BooleanField(_("unstable"), default=False)
    cpus = models.PositiveIntegerField(_("CPUs"), null=True, blank=True)
    cpu_user = models.FloatField(_("CPU user %"), null=True, blank=True)
    cpu_system = models.FloatField(_("CPU system %"), null=True, blank=True)
    cpu_iowait = models.FloatField(_("CPU iowait %"), null=True, blank=True)
    cpu_steal = models.FloatField(_("CPU steal %"), null=True, blank=True)
    cpu_idle = models.FloatField(_("CPU idle %"), null=True, blank=True)
    cpu_ms_per_transaction = models.FloatField(_("CPU ms per transaction"), null=True, blank=True)
    disk_device = models.CharField(_("busiest disk"), max_length=64, blank=True)
    disk_util_percent = models.FloatField(_("disk utilisation %"), null=True, blank=True)
    disk_await_ms = models.FloatField(_("disk await (ms)"), null=True, blank=True)
    memory_used_percent = models.FloatField(_("memory used %"), null=True, blank=True)
    wait_samples = models.PositiveIntegerField(_("wait-event samples"), default=0)
    wait_events = models.JSONField(_("wait events"), default=list)  # [{wait_event_type, wait_event, count}]
    perf_samples = models.PositiveIntegerField(_("perf samples"), default=0)
    perf_self = models.JSONField(_("perf self shares"), default=list)  # [{function, samples, share}]
    perf_children = models.JSONField(_("perf children shares"), default=list)
    perf_flame = models.JSONField(_("perf call tree"), default=dict)  # labels, parents, values
    series = models.JSONField(_("time series"), default=dict)
    # One row per pgbench table and index: size, dead-tuple share and HOT updates before and after the run
    # (evidence/table_health.py).
    table_health = models.JSONField(_("table health"), default=list)

    class Meta:
        verbose_name = _("trial evidence")
        verbose_name_plural = _("trial evidence")

    def __str__(self) -> str:
        return f"evidence of trial {self.trial_id}"
