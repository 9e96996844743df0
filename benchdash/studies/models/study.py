"""Studies, their trials and each trial's attempts: the plan, its state and who ran what."""

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Build, Host
from benchdash.studies.contention import contention_note
from benchdash.studies.lifecycle.plan import PlannedTrial
from benchdash.studies.models.failure import failure_kind_field
from benchdash.studies.models.scenario import RUN_ORDER_LABELS, HostOrder, Scenario
from benchdash.studies.results.sequential import Design
from benchdash.studies.results.uncertainty import DEFAULT_THRESHOLD
from benchdash.studies.threads import thread_count, threads_text
from workers.spec import RunOrder


class Statistic(models.TextChoices):
    """What a figure is, as its source states it. A measured study's figures are the medians of its runs, or their
    means where its design says so (seeds 002 and 003 average their runs)."""

    MEDIAN = "median", _("median")
    MEAN = "mean", _("mean")
    RELATIVE = "relative", _("relative (baseline = 100)")
    PEAK = "peak", _("peak (the highest over client levels)")
    SINGLE = "single", _("single run")
    UNSTATED = "unstated", _("unstated")


class Arrangement(models.TextChoices):
    """How a study runs the two sides of its comparison: one trial after another (sequential), or both sides at the
    same moment on one DB host, each server and its pgbench in its own half of the host's CPUs, the halves swapped
    each round (duet: studies/lifecycle/duet_plan.py, workers/duet.py). An A/A duet runs one build on both sides:
    what the host's duet can tell apart when nothing differs."""

    SEQUENTIAL = "sequential", _("sequential: one trial after another")
    DUET = "duet", _("duet: both sides at once, each in its own half of the CPUs")
    DUET_AA = "duet_aa", _("A/A duet: one build on both sides at once")


DUETS = (Arrangement.DUET, Arrangement.DUET_AA)
DUET_SIDES = 2


# What a study measured here may report of its runs (the design's `statistic`); the others are published figures'.
MEASURED_STATISTICS = (Statistic.MEDIAN, Statistic.MEAN)


class Study(models.Model):
    """One experiment: variants (builds, or builds and what else the seeds vary) compared on one DB host or several,
    or a published set of figures. `builds` and `baseline` are its variants' builds and the baseline variant's build.

    Status:  DRAFT -> QUEUED -> RUNNING -> DONE | FAILED | CANCELLED. A study imported from a
    published source (kind PUBLISHED) is DONE as imported: every figure of it is a succeeded trial.
    """

    class Kind(models.TextChoices):
        MEASURED = "measured", _("measured here")
        PUBLISHED = "published", _("published")

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    title = models.CharField(_("title"), max_length=300)
    year = models.PositiveSmallIntegerField(_("year"))
    # A published source that does not state its year: the year is inferred (and says so wherever it is shown).
    year_inferred = models.BooleanField(_("year inferred (the source does not state it)"), default=False)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.MEASURED)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    source = models.TextField(_("source"), blank=True)
    hardware = models.CharField(_("hardware"), max_length=300, blank=True)
    os = models.CharField(_("OS"), max_length=200, blank=True)
    statistic = models.CharField(_("statistic"), max_length=10, choices=Statistic.choices, default=Statistic.MEDIAN)
    db_host = models.ForeignKey(
        Host,
        verbose_name=_("DB host"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="db_studies",
    )
    client_host = models.ForeignKey(
        Host,
        verbose_name=_("pgbench host"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="client_studies",
    )
    builds = models.ManyToManyField(Build, verbose_name=_("builds"), related_name="studies")
    baseline = models.ForeignKey(
        Build,
        verbose_name=_("baseline build"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    scenarios = models.ManyToManyField(Scenario, verbose_name=_("scenarios"), related_name="studies")
    # The seeds' design the study was made from (the form's or queue_study's preset): what the quality gate holds
    # it against (studies/quality.py). Empty: made without one, or before studies recorded it.
    preset = models.ForeignKey(
        "studies.StudyPreset",
        verbose_name=_("study preset"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="studies",
    )
    client_levels = ArrayField(models.PositiveIntegerField(), verbose_name=_("client levels"), default=list)
    # Empty for a published study whose source does not say how many runs stand behind each figure.
    repetitions = models.PositiveSmallIntegerField(_("repetitions"), null=True, blank=True, default=3)
    # The noise check of the DB host before the first trial (workers/preflight.py): the study runs whatever it
    # says, and its verdict stays with the study. Empty until it ran.
    noise_check = models.JSONField(_("noise check of the DB host"), default=dict, blank=True)
    # The same check on each other DB host a variant names (a study on two hosts at once), by the host's id: each
    # host's first trial runs it. Empty for a study on one host.
    host_noise_checks = models.JSONField(_("noise checks of the other DB hosts"), default=dict, blank=True)
    # Adaptive repetitions: after the planned ones, a cell whose interval still crosses the threshold gets
    # another round, up to this many trials (studies/lifecycle/adaptive.py). Empty: off.
    max_repetitions = models.PositiveSmallIntegerField(_("adaptive repetitions, up to"), null=True, blank=True)
    # Uncounted runs of each cell before its counted ones (0 or 1): they absorb a first round that runs faster or
    # slower than the rest (studies/results/first_round.py); their trials are marked warm-up and make no point.
    warmup_runs = models.PositiveSmallIntegerField(
        _("warm-up runs per cell"), default=0, validators=[MaxValueValidator(1)]
    )
    duration_s = models.PositiveIntegerField(_("duration (s)"), default=60)
    scale = models.PositiveIntegerField(_("scale"), default=1)
    fillfactor = models.PositiveSmallIntegerField(_("fillfactor"), null=True, blank=True)
    # pgbench's -j for every trial (studies/threads.py): "" each scenario's rule, else a rule or a number.
    threads = models.CharField(_("threads (-j)"), max_length=8, blank=True, default="")
    # Off: pgbench -n, benchdash vacuums itself. On: pgbench vacuums its tables before each run (no -n), as seed 003
    # ran it.
    pgbench_vacuum = models.BooleanField(_("pgbench vacuums before each run (no -n)"), default=False)
    # Whose pgbench runs: empty, the pgbench host's (on the DB host, the DB build's own where it ships one); else
    # this build's own pgbench, installed on the pgbench host (pgbench before 14 prints TPS including connections).
    pgbench_build = models.ForeignKey(
        Build,
        verbose_name=_("pgbench of the build"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    pg_settings = models.JSONField(_("postgresql.conf settings"), default=dict, blank=True)
    collect_sar = models.BooleanField(_("collect sar"), default=True)
    collect_perf = models.BooleanField(_("collect perf"), default=False)
    collect_wait_events = models.BooleanField(_("sample wait events"), default=True)
    # Off: the study's clusters (data dirs, snapshots) leave its DB host when it ends or is cancelled. On: they stay
    # until a member clears the host's work dir (the host page).
    keep_data = models.BooleanField(_("keep data directories"), default=False)
    seed = models.BigIntegerField(_("random seed"), default=0)
    run_order = models.CharField(
        _("run order"),
        max_length=10,
        choices=[(order.value, label) for order, label in RUN_ORDER_LABELS.items()],
        default=RunOrder.RANDOM.value,
    )
    host_order = models.CharField(
        _("host variants"), max_length=10, choices=HostOrder.choices, default=HostOrder.TOGETHER
    )
    arrangement = models.CharField(
        _("arrangement"), max_length=12, choices=Arrangement.choices, default=Arrangement.SEQUENTIAL
    )
    import_key = models.CharField(max_length=64, unique=True, null=True, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    # What the members concluded, for the yearly report; members with "change study" write it.
    conclusions = models.TextField(_("notes and conclusions"), blank=True)
    # Only official studies count in the trends (home page, /trends.csv). Published studies are official as
    # imported (unless their file says otherwise); a measured one only when a member with the permission
    # "mark official" says so, so that a smoke test never moves the home page.
    official = models.BooleanField(_("counts in the trends (official)"), default=False)
    official_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("marked official by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    official_at = models.DateTimeField(_("marked official at"), null=True, blank=True)
    # Why a study below the rules for an official study (studies/quality.py) was marked official anyway, as its
    # marker wrote it; empty for a study that met them. Shown on its page and beside its links on the trends page.
    official_reason = models.TextField(_("why official below the rules"), blank=True)
    # The smallest difference that counts, as a fraction (0.02 = 2%): a ratio is "faster" or "slower" only when
    # its whole interval lies beyond it (studies/results/uncertainty.py).
    threshold = models.FloatField(
        _("threshold"),
        default=DEFAULT_THRESHOLD,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
    )

    class Meta:
        ordering = ["-year", "-created_at"]
        verbose_name = _("study")
        verbose_name_plural = _("studies")
        indexes = [
            models.Index(fields=["status"], name="study_status_idx"),  # beat's orphan scan
            # The study list's order (a page of 100 of 100,000 studies, bench/consortium_scale.py).
            models.Index(F("year").desc(), "title", "id", name="study_list_order_idx"),
        ]
        permissions = [
            ("mark_official", _("Can mark a study official (include it in the trends)")),
            ("cancel_study", _("Can cancel a study and run its failed trials again")),
        ]

    def __str__(self) -> str:
        return f"{self.year} {self.title}"

    @property
    def is_published(self) -> bool:
        return self.kind == self.Kind.PUBLISHED

    @property
    def most_trials(self) -> int | None:
        """With adaptive repetitions, the trials the study runs if every cell runs to the cap; None without."""
        if not self.max_repetitions:
            return None
        return (
            max(self.variants.count(), self.builds.count())
            * self.scenarios.count()
            * len(self.client_levels)
            * self.max_repetitions
        )

    @property
    def design(self) -> Design:
        """Its planned repetitions and adaptive cap, which set the confidence of each look (results/sequential.py)."""
        return Design(self.repetitions or 0, self.max_repetitions)

    @property
    def confidence_percent(self) -> str:
        """The confidence of the study's intervals at its last look as the pages write it: '95', or '96.61' with 3
        planned repetitions and adaptive ones up to 10 (earlier looks are drawn wider)."""
        return f"{round(self.design.final_confidence * 100, 2):g}"

    @property
    def threshold_percent(self) -> str:
        """The threshold as the pages write it: 0.02 -> '2', 0.015 -> '1.5'."""
        return f"{self.threshold * 100:g}"

    @property
    def is_duet(self) -> bool:
        return self.arrangement in DUETS

    def arrangement_text(self) -> str:
        """What design ran, as the page, the report and the CSV say it: "duet: both sides at once, CPUs 0-7 / 8-15,
        swapped each round" (the halves as its trials found them; "its two halves" before any ran)."""
        if not self.is_duet:
            return gettext("sequential: one trial after another")
        found = self.trials.exclude(duet_cpus="").exclude(duet_half=None).values_list("duet_half", "duet_cpus")
        halves = dict(found.order_by("duet_half").distinct("duet_half"))
        both = {"halves": f"{halves.get(0)} / {halves.get(1)}"}
        cpus = gettext("CPUs %(halves)s") % both if len(halves) == DUET_SIDES else gettext("its two halves of the CPUs")
        if self.arrangement == Arrangement.DUET_AA:
            return gettext("A/A duet: one build on both sides at once, %(cpus)s, swapped each round") % {"cpus": cpus}
        return gettext("duet: both sides at once, %(cpus)s, swapped each round") % {"cpus": cpus}

    @property
    def has_ended(self) -> bool:
        """Nothing of it runs any more: done, failed or cancelled (a published study is done)."""
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED)

    def add_planned_trials(self, planned: Iterable[PlannedTrial]) -> int:
        """Save planned trials (studies/lifecycle/plan.py) as this study's pending trials, each on its variant's DB
        host (the study's unless the variant names one); returns how many."""
        scenarios = {scenario.pk: scenario for scenario in self.scenarios.all()}
        hosts = dict(self.variants.values_list("pk", "db_host_id"))
        trials = Trial.objects.bulk_create(
            Trial(
                study=self,
                build_id=trial.build_id,
                variant_id=trial.variant_id,
                scenario_id=trial.scenario_id,
                host_id=hosts.get(trial.variant_id or 0) or self.db_host_id,
                clients=trial.clients,
                threads=self.threads_for(scenarios[trial.scenario_id], trial.clients),
                repetition=trial.repetition,
                position=trial.position,
                reset_data=trial.reset_data,
                prewarm=trial.prewarm,
                warmup=trial.warmup,
                duet_half=trial.duet_half,
            )
            for trial in planned
        )
        return len(trials)

    def threads_for(self, scenario: Scenario, clients: int) -> int:
        """pgbench's -j for a run of the scenario at these clients: the study's choice, else the scenario's rule."""
        return thread_count(self.threads, clients) if self.threads else scenario.threads_for(clients)

    @property
    def threads_text(self) -> str:
        return threads_text(self.threads)

    @property
    def contention_note(self) -> str | None:
        """What a TPC-B-like study with more clients than its scale measures too (studies/contention.py)."""
        return contention_note(self.scenarios.all(), self.scale, self.client_levels)

    def mark_official(self, official: bool, *, by: Any = None, reason: str = "") -> bool:
        """Include the study in the trends (official) or take it out; False when it still runs (its figures
        are not final) or is a calibration's (its slowed runs are injected, no build's figures), in which case nothing
        changes. Records who decided, when, and why where the study is below the rules (studies/quality.py)."""
        if official and (not self.has_ended or self.variants.filter(slowdown_pct__isnull=False).exists()):
            return False
        self.official = official
        self.official_by = by if official and getattr(by, "pk", None) else None
        self.official_at = timezone.now() if official else None
        self.official_reason = reason if official else ""
        self.save(update_fields=["official", "official_by", "official_at", "official_reason"])
        return True


class Trial(models.Model):
    """One pgbench run, or one published figure (published=True).

    Status:  PENDING -> RUNNING -> SUCCEEDED | FAILED;  PENDING | RUNNING -> CANCELLED;
             RUNNING -> PENDING when an attempt failed or was lost with attempts left (FAILED when none
             is left). `attempts` counts the claims; each claim has its Attempt row.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    study = models.ForeignKey(Study, verbose_name=_("study"), on_delete=models.CASCADE, related_name="trials")
    build = models.ForeignKey(Build, verbose_name=_("build"), on_delete=models.PROTECT, related_name="trials")
    # The variant it measures (its build is `build`). Every planned and imported trial has one; a row written
    # around the planner without one counts as its build's (the pages then group it by build, as before variants).
    variant = models.ForeignKey(
        "studies.Variant",
        verbose_name=_("variant"),
        null=True,
        blank=True,
        on_delete=models.RESTRICT,
        related_name="trials",
    )
    scenario = models.ForeignKey(Scenario, verbose_name=_("scenario"), on_delete=models.PROTECT, related_name="trials")
    host = models.ForeignKey(
        Host,
        verbose_name=_("DB host"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="trials",
    )
    clients = models.PositiveIntegerField(_("clients"))
    # What tells a published figure apart from others of the same version at the same clients ("-t 100",
    # "15 cores"): each value is its own point. Empty for measured trials.
    conditions = models.CharField(_("conditions"), max_length=200, blank=True, default="")
    # Empty for a published figure whose source does not state them: unknown, never 1 / 1 / 0.
    threads = models.PositiveIntegerField(_("threads"), null=True, blank=True)
    repetition = models.PositiveSmallIntegerField(_("repetition"), null=True, blank=True)
    position = models.PositiveIntegerField(_("order"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    # Decided by the plan from the scenario's reset and prewarm rules (studies/lifecycle/plan.py).
    reset_data = models.BooleanField(_("starts from fresh data"), default=False)
    prewarm = models.BooleanField(_("loads the cache first (pg_prewarm)"), default=False)
    # A warm-up run (round 0, the study's warmup_runs): run like the others, never counted in a point.
    warmup = models.BooleanField(_("warm-up run"), default=False)
    # In a duet study: the half of the DB host's CPUs this side runs on (0 or 1), drawn by the plan for each round,
    # and the CPUs that half held when it ran ("0-7"); empty in a sequential study.
    duet_half = models.PositiveSmallIntegerField(_("duet half"), null=True, blank=True)
    duet_cpus = models.CharField(_("duet CPUs"), max_length=200, blank=True)
    published = models.BooleanField(_("published figure"), default=False)
    statistic = models.CharField(_("statistic"), max_length=10, choices=Statistic.choices, default=Statistic.MEDIAN)
    tps = models.FloatField(_("TPS"), null=True, blank=True)
    tps_including_connections = models.FloatField(_("TPS incl. connections"), null=True, blank=True)
    # A calibration's trial: the cores its server used during pgbench (its cgroup's CPU time / the run's time).
    server_cores = models.FloatField(_("server cores used"), null=True, blank=True)
    latency_avg_ms = models.FloatField(_("latency avg (ms)"), null=True, blank=True)
    latency_stddev_ms = models.FloatField(_("latency stddev (ms)"), null=True, blank=True)
    transactions = models.BigIntegerField(_("transactions"), null=True, blank=True)
    failed_transactions = models.BigIntegerField(_("failed transactions"), null=True, blank=True)
    command = models.TextField(_("command"), blank=True)
    pgbench_version = models.CharField(_("pgbench version"), max_length=40, blank=True)
    server_version = models.CharField(_("server version"), max_length=40, blank=True)
    server_settings = models.JSONField(_("server settings"), default=dict, blank=True)
    host_facts = models.JSONField(_("host facts"), default=dict, blank=True)
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(_("heartbeat"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    failure_kind = failure_kind_field()
    notes = models.TextField(_("notes"), blank=True)
    import_key = models.CharField(max_length=64, unique=True, null=True, blank=True, editable=False)
    # Set (by the store's clock) when an attempt's outcome committed or an attempt was lost, cleared once the trial's
    # points, evidence and files are brought up to date after commit; beat repairs what a crash left set.
    outputs_due_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["study", "position"]
        verbose_name = _("trial")
        verbose_name_plural = _("trials")
        constraints = [
            models.UniqueConstraint(
                fields=["study", "variant", "build", "scenario", "clients", "repetition"],
                condition=Q(published=False),
                nulls_distinct=False,
                name="trial_unique_measured_variant_point",
            ),
            models.UniqueConstraint(
                fields=["study", "position"],
                condition=Q(published=False),
                name="trial_unique_position",
            ),
            # The database, not the broker, keeps one DB host to one running trial.
            models.UniqueConstraint(fields=["host"], condition=Q(status="running"), name="trial_one_running_per_host"),
            models.CheckConstraint(condition=Q(clients__gte=1), name="trial_clients_positive"),
            models.CheckConstraint(condition=Q(tps__isnull=True) | Q(tps__gte=0), name="trial_tps_not_negative"),
        ]
        indexes = [
            # results: medians per build x scenario x clients of one study
            models.Index(fields=["study", "build", "scenario", "clients"], name="trial_point_idx"),
            # the runner: the next pending trial of a study
            models.Index(fields=["study", "status", "position"], name="trial_next_idx"),
            # studies/results/store.py: the medians of a study's (or one point's) counted trials, read by an
            # index-only scan already in GROUP BY order.
            models.Index(
                fields=["study", "scenario", "variant", "build", "clients", "conditions"],
                include=["tps"],
                condition=Q(status="succeeded", tps__isnull=False, warmup=False),
                name="trial_variant_median_idx",
            ),
            # beat's repair of outputs a crash left behind (outcome.trials_outputs_repair)
            models.Index(
                fields=["outputs_due_at"], condition=Q(outputs_due_at__isnull=False), name="trial_outputs_due_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study_id}#{self.position} {self.build} {self.scenario.slug} c={self.clients} r={self.repetition}"


class AttemptQuerySet(models.QuerySet["Attempt"]):
    def latest_of(self, trial_id: int, number: int) -> "AttemptQuerySet":
        """The trial's newest attempt of that number: "Run the failed trials again" counts from 1 again, and the
        attempts of the earlier runs stay."""
        newest = self.filter(trial_id=trial_id, number=number).order_by("-pk").values("pk")[:1]
        return self.filter(pk=models.Subquery(newest))


class Attempt(models.Model):
    """One try at running a trial: made by the claim, closed when its worker is done with it.

    Its id is the attempt's fencing token: ids only grow, and a DB host's claims follow one another
    (trial_one_running_per_host), so a later attempt on a host always holds a larger token. The
    engine writes it to the host (Transport.take_fence) and refuses to act for a smaller one.
    Result:  RUNNING -> SUCCEEDED | FAILED | CANCELLED | RETRIED (failed with attempts left)
             | LOST (its worker stopped reporting: beat put the trial back) | STALE (ended after that).
    """

    class Result(models.TextChoices):
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")
        RETRIED = "retried", _("failed, tried again")
        CANCELLED = "cancelled", _("cancelled")
        LOST = "lost", _("worker lost")
        STALE = "stale", _("ended after it was replaced")

    trial = models.ForeignKey(Trial, verbose_name=_("trial"), on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField(_("attempt"))
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    result = models.CharField(_("result"), max_length=10, choices=Result.choices, default=Result.RUNNING)
    started_at = models.DateTimeField(_("started"))
    # When its worker was done with it, cleanup on the targets included; empty while it runs, and for
    # a lost attempt whose worker never came back.
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    failure_kind = failure_kind_field()

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["trial", "pk"]
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")

    def __str__(self) -> str:
        return f"{self.trial_id} attempt {self.number}"
