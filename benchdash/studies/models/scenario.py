"""What a study runs: scenarios (the pgbench workload and its reset rule) and study presets."""

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from benchdash.studies.threads import thread_count
from workers.spec import Prewarm, Reset, RunOrder

RESET_LABELS = {Reset.ONCE: _("once per study"), Reset.ROUND: _("every round"), Reset.TRIAL: _("every trial")}
PREWARM_LABELS = {
    Prewarm.NONE: _("none"),
    Prewarm.ROUND: _("at the start of each round"),
    Prewarm.TRIAL: _("before every run"),
}


def in_reader_language(english: str, japanese: str) -> str:
    """The Japanese text on a Japanese page where the seed data gives one, else the English."""
    return japanese if japanese and (get_language() or "").startswith("ja") else english


RUN_ORDER_LABELS = {
    RunOrder.RANDOM: _("random, each round shuffled by the seed"),
    RunOrder.ASCENDING: _("fixed: each round in the same order, client levels ascending"),
}


class ScenarioQuerySet(models.QuerySet["Scenario"]):
    def display_names(self) -> dict[int, str]:
        """Id -> the name in the reader's language."""
        return {scenario.pk: scenario.display_name for scenario in self.only("name", "name_ja")}


class Scenario(models.Model):
    """A pgbench workload together with the procedure around it."""

    class Builtin(models.TextChoices):
        NONE = "", _("custom script")
        TPCB = "tpcb-like", _("TPC-B (sort of)")
        SELECT_ONLY = "select-only", _("select only")
        SIMPLE_UPDATE = "simple-update", _("simple update")

    class Protocol(models.TextChoices):
        SIMPLE = "simple", _("simple")
        EXTENDED = "extended", _("extended")
        PREPARED = "prepared", _("prepared")

    class ThreadRule(models.TextChoices):
        HALF = "half", _("clients / 2 (at least 1)")
        ONE = "one", _("1 (pgbench's default)")
        SAME = "same", _("same as clients")

    slug = models.SlugField(_("slug"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=200)
    name_ja = models.CharField(_("name in Japanese"), max_length=200, blank=True)
    description = models.TextField(_("description"), blank=True)
    description_ja = models.TextField(_("description in Japanese"), blank=True)
    builtin = models.CharField(_("built-in script"), max_length=20, choices=Builtin.choices, blank=True)
    script = models.TextField(_("custom script"), blank=True)
    scale = models.PositiveIntegerField(_("default scale"), default=1)
    fillfactor = models.PositiveSmallIntegerField(_("fillfactor"), null=True, blank=True)
    reset = models.CharField(
        _("data reset"),
        max_length=8,
        choices=[(rule.value, label) for rule, label in RESET_LABELS.items()],
        default=Reset.ONCE.value,
    )
    prewarm = models.CharField(
        _("prewarm with pg_prewarm"),
        max_length=8,
        choices=[(rule.value, label) for rule, label in PREWARM_LABELS.items()],
        default=Prewarm.NONE.value,
    )
    checkpoint_vacuum = models.BooleanField(_("CHECKPOINT, then VACUUM, after each run"), default=False)
    reset_vacuum_full = models.BooleanField(
        _("VACUUM FULL, CHECKPOINT and ANALYZE after each data rebuild"), default=False
    )
    protocol = models.CharField(_("query mode"), max_length=10, choices=Protocol.choices, default=Protocol.SIMPLE)
    thread_rule = models.CharField(_("threads"), max_length=8, choices=ThreadRule.choices, default=ThreadRule.HALF)
    source = models.CharField(_("source"), max_length=300, blank=True)

    objects = ScenarioQuerySet.as_manager()

    class Meta:
        ordering = ["slug"]
        verbose_name = _("scenario")
        verbose_name_plural = _("scenarios")

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        return in_reader_language(self.name, self.name_ja)

    @property
    def display_description(self) -> str:
        return in_reader_language(self.description, self.description_ja)

    def data_fillfactor(self, chosen: int | None = None) -> int | None:
        """The fillfactor this scenario's data is built with: only a scenario that sets one gets one (the
        update scenario: 80), and a study's chosen fillfactor replaces it."""
        return (chosen or self.fillfactor) if self.fillfactor else None

    def threads_for(self, clients: int) -> int:
        return thread_count(self.thread_rule, clients)


class HostOrder(models.TextChoices):
    """How a study on several DB hosts runs its host variants: each host its own trials at the same time as the
    others, or all trials of one host (in the order of the host axis) before the next host's first (a dual-boot
    server, one OS at a time: the next host may be down until the first is shut down and the other comes up)."""

    TOGETHER = "together", _("together: each host runs its own trials, the hosts at the same time")
    IN_TURN = "in_turn", _("one after another: all trials of one host, then the next host's")


class StudyPreset(models.Model):
    """A ready-made study design from the seeds: scenarios, client ladder, settings."""

    slug = models.SlugField(_("slug"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=200)
    name_ja = models.CharField(_("name in Japanese"), max_length=200, blank=True)
    scenarios = models.ManyToManyField(Scenario, verbose_name=_("scenarios"))
    client_levels = ArrayField(models.PositiveIntegerField(), verbose_name=_("client levels"))
    repetitions = models.PositiveSmallIntegerField(_("repetitions"), default=3)
    duration_s = models.PositiveIntegerField(_("duration (s)"), default=60)
    scale = models.PositiveIntegerField(_("scale"), default=2000)
    pg_settings = models.JSONField(_("postgresql.conf settings"), default=dict, blank=True)
    run_order = models.CharField(
        _("run order"),
        max_length=10,
        choices=[(order.value, label) for order, label in RUN_ORDER_LABELS.items()],
        default=RunOrder.RANDOM.value,
    )
    host_order = models.CharField(
        _("host variants"), max_length=10, choices=HostOrder.choices, default=HostOrder.TOGETHER
    )
    source = models.CharField(_("source"), max_length=300, blank=True)
    # The seed's own wording for each step of the study's procedure, and what it does not state.
    procedure = models.TextField(_("procedure, as the seed states it"), blank=True)
    # What the seed compares, as the form's vary box takes it: one axis a line (checksums=off,on; cpus=15,30,45,60;
    # host=physical,kvm-guest). Empty: builds only.
    vary = models.TextField(_("vary"), blank=True)
    # One uncounted warm-up run per cell (Study.warmup_runs): 1 unless the seed says otherwise (none does).
    warmup_runs = models.PositiveSmallIntegerField(_("warm-up runs per cell"), default=1)
    # What the seed reports of its runs: "median" (PGECons) or "mean" (seeds 002 and 003: 10 runs averaged).
    statistic = models.CharField(
        _("statistic"),
        max_length=10,
        choices=[("median", _("median")), ("mean", _("mean"))],
        default="median",
    )

    class Meta:
        ordering = ["slug"]
        verbose_name = _("study preset")
        verbose_name_plural = _("study presets")

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        return in_reader_language(self.name, self.name_ja)
