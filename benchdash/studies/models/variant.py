"""What a study compares: variants, each a build plus what else the seeds vary (cluster options, settings,
fillfactor, CPUs, DB host and workload). A study of builds only has one variant per build."""

from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Build, Host
from benchdash.studies.models.study import Study

# initdb --wal-segsize: a power of 2 from 1 to 1024 MB (PostgreSQL 11 and later).
WAL_SEGMENT_SIZES_MB = tuple(2**power for power in range(11))


class VariantQuerySet(models.QuerySet["Variant"]):
    def of_build(self, study: Study, build: Build) -> "Variant":
        """The study's variant of this build alone (labelled with its name), made when missing: what the importer
        and a study of builds give each build."""
        variant, _created = self.get_or_create(
            study=study,
            label=build.name,
            defaults={"build": build, "baseline": study.baseline_id == build.pk, "position": study.variants.count()},
        )
        return variant

    def mark_baseline(self, study: Study) -> None:
        """The study's baseline build's variant of that build alone becomes its baseline (the importer's rule)."""
        self.filter(study=study).update(baseline=False)
        self.filter(study=study, build_id=study.baseline_id, label=models.F("build__name")).update(baseline=True)


class Load(models.TextChoices):
    """The axis `load`: whether a variant's trials run with nothing else of the study running on any of its DB hosts
    (alone), or together with the same trial of the variant's partner on each other DB host, sent at the same moment
    (at once): the seeds' "two guests loaded at once against one alone" (studies/lifecycle/host_turns.py)."""

    ALONE = "alone", _("alone")
    AT_ONCE = "at_once", _("at once with the other hosts")


class Variant(models.Model):
    """One line of a study's charts and one column of its tables: a build, and how its cluster, settings,
    data, CPUs, host and workload differ from the study's.

    Empty fields take the study's value (settings are added on top of the study's), or initdb's and
    pgbench's defaults. Exactly one variant of a measured study is its baseline.
    """

    study = models.ForeignKey(Study, verbose_name=_("study"), on_delete=models.CASCADE, related_name="variants")
    build = models.ForeignKey(Build, verbose_name=_("build"), on_delete=models.PROTECT, related_name="variants")
    # Defaults to the build's name for a variant that differs only in its build (how pages name it).
    label = models.CharField(_("label"), max_length=200)
    baseline = models.BooleanField(_("baseline"), default=False)
    position = models.PositiveSmallIntegerField(_("order"), default=0)
    # Cluster creation (initdb): None keeps initdb's default (checksums off before 18, on from 18).
    data_checksums = models.BooleanField(_("data checksums"), null=True, blank=True)
    wal_segment_mb = models.PositiveIntegerField(
        _("WAL segment size (MB)"),
        null=True,
        blank=True,
        choices=[(size, str(size)) for size in WAL_SEGMENT_SIZES_MB],
    )
    locale = models.CharField(_("locale"), max_length=64, blank=True)
    encoding = models.CharField(_("encoding"), max_length=32, blank=True)
    # initdb -X: a directory of the DB host under which each cluster keeps its WAL (workers/wal_dir.py), as seed 001
    # kept WAL on its own partition; empty: inside the data directory.
    wal_dir = models.CharField(_("WAL directory (initdb -X)"), max_length=300, blank=True)
    # postgresql.conf settings on top of the study's (a setting named in both takes this value).
    pg_settings = models.JSONField(_("postgresql.conf settings"), default=dict, blank=True)
    fillfactor = models.PositiveSmallIntegerField(
        _("fillfactor"), null=True, blank=True, validators=[MinValueValidator(10), MaxValueValidator(100)]
    )
    # How many CPUs of the DB host the server may use (its first N online CPUs, a CPU set); None: all of them.
    cpus = models.PositiveSmallIntegerField(_("CPUs"), null=True, blank=True, validators=[MinValueValidator(1)])
    # None: the study's DB host.
    db_host = models.ForeignKey(
        Host,
        verbose_name=_("DB host"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="db_variants",
    )
    # The workload: pgbench -t (transactions per client) instead of the study's -T, and -C (a new
    # connection per transaction).
    transactions = models.PositiveIntegerField(
        _("transactions per client (-t)"), null=True, blank=True, validators=[MinValueValidator(1)]
    )
    connect_each_transaction = models.BooleanField(_("new connection per transaction (-C)"), default=False)
    # A calibration's injected slowdown (workers/cpu_quota.py): the server gets this % less CPU than its unthrottled
    # runs used; 0: unthrottled, in its cgroup all the same (its use sets the quota); None: not a calibration's.
    slowdown_pct = models.PositiveSmallIntegerField(
        _("injected CPU slowdown (%)"), null=True, blank=True, validators=[MaxValueValidator(90)]
    )
    # Empty: the study does not vary the load (its hosts run as its host order says).
    load = models.CharField(_("load"), max_length=10, choices=Load.choices, blank=True)

    objects = VariantQuerySet.as_manager()

    class Meta:
        ordering = ["study", "position", "pk"]
        verbose_name = _("variant")
        verbose_name_plural = _("variants")
        constraints = [
            models.UniqueConstraint(fields=["study", "label"], name="variant_unique_label"),
            models.UniqueConstraint(fields=["study"], condition=Q(baseline=True), name="variant_one_baseline"),
            models.CheckConstraint(condition=Q(cpus__isnull=True) | Q(cpus__gte=1), name="variant_cpus_positive"),
            models.CheckConstraint(
                condition=Q(fillfactor__isnull=True) | Q(fillfactor__gte=10, fillfactor__lte=100),
                name="variant_fillfactor_range",
            ),
        ]

    # What a variant holds besides its build: two variants that agree in these compare their builds alone.
    CONDITIONS = (
        "data_checksums",
        "wal_segment_mb",
        "locale",
        "encoding",
        "wal_dir",
        "pg_settings",
        "fillfactor",
        "cpus",
        "db_host_id",
        "transactions",
        "connect_each_transaction",
        "load",
        "slowdown_pct",
    )

    def __str__(self) -> str:
        return self.label

    def host_for(self, study: Study) -> Host | None:
        """The DB host its trials run on: its own, else the study's."""
        return self.db_host or study.db_host

    def settings_over(self, study_settings: dict[str, Any]) -> dict[str, Any]:
        """The study's postgresql.conf settings with this variant's on top."""
        return {**study_settings, **self.pg_settings}
