"""Change points found in benchdash's series, what members said about them, and the bisects that narrow them.

A change point is identified by its series and the two labels it lies between; recomputing the series keeps
the row (and so its acknowledgement) while the change is still found, and removes it when it is not.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchdash.changes.bisection import SAME
from benchdash.inventory.models import Build
from benchdash.studies.models import Scenario, Study
from benchdash.studies.results.tables import VERDICT_LABELS
from benchdash.studies.results.uncertainty import Verdict
from benchdash.trends.change_marks import confidence_percent, size_percent


class SeriesKind(models.TextChoices):
    TREND = "trend", _("official trend index")
    STUDY = "study", _("version matrix or minor series")
    HOST = "host", _("a host's repeated studies")


class ChangePointQuerySet(models.QuerySet["ChangePoint"]):
    def new(self) -> ChangePointQuerySet:
        """Not acknowledged yet (as known or as noise)."""
        return self.filter(acknowledgement__isnull=True)


class ChangePoint(models.Model):
    """A move of one series' level between two adjacent points (`before_label`, `after_label`).

    `size` is mean after / mean before - 1; `pvalue` the t-test's between the segments on either side. The
    sides' studies and builds say where the evidence of each side lies (the explanation card reads them).
    """

    series_key = models.CharField(_("series"), max_length=200)
    series_kind = models.CharField(_("kind of series"), max_length=10, choices=SeriesKind.choices)
    series_title = models.CharField(_("series title"), max_length=400)
    official = models.BooleanField(_("in an official series"), default=False)
    scenario = models.ForeignKey(Scenario, verbose_name=_("scenario"), on_delete=models.CASCADE, null=True)
    clients = models.PositiveIntegerField(_("clients"), null=True, blank=True)
    before_label = models.CharField(_("before"), max_length=100)
    after_label = models.CharField(_("after"), max_length=100)
    before_study = models.ForeignKey(Study, on_delete=models.CASCADE, null=True, related_name="+")
    after_study = models.ForeignKey(Study, on_delete=models.CASCADE, null=True, related_name="+")
    before_build = models.ForeignKey(Build, on_delete=models.CASCADE, null=True, related_name="+")
    after_build = models.ForeignKey(Build, on_delete=models.CASCADE, null=True, related_name="+")
    mean_before = models.FloatField(_("level before"))
    mean_after = models.FloatField(_("level after"))
    size = models.FloatField(_("size"))
    pvalue = models.FloatField(_("p-value"))
    found_at = models.DateTimeField(_("first found"), auto_now_add=True)
    # The series as last computed, for its chart: labels and values in order; the change lies before `index`.
    series_labels = models.JSONField(default=list)
    series_values = models.JSONField(default=list)
    index = models.PositiveIntegerField(default=0)

    objects = ChangePointQuerySet.as_manager()

    class Meta:
        ordering = ["-found_at", "series_key"]
        constraints = [
            models.UniqueConstraint(fields=["series_key", "before_label", "after_label"], name="change_point_once")
        ]

    def __str__(self) -> str:
        return f"{self.series_title}: {self.before_label} -> {self.after_label} ({self.size_percent})"

    @property
    def confidence(self) -> float:
        return 1.0 - self.pvalue

    @property
    def size_percent(self) -> str:
        return size_percent(self.size)

    @property
    def confidence_percent(self) -> str:
        return confidence_percent(self.confidence)

    @property
    def is_new(self) -> bool:
        return not hasattr(self, "acknowledgement")


class Acknowledgement(models.Model):
    """A member's word on a change: known (with a note and a link) or noise. The change stays listed."""

    class Kind(models.TextChoices):
        KNOWN = "known", _("known")
        NOISE = "noise", _("noise")

    change = models.OneToOneField(ChangePoint, on_delete=models.CASCADE, related_name="acknowledgement")
    kind = models.CharField(_("acknowledged as"), max_length=10, choices=Kind.choices)
    note = models.TextField(_("note"), blank=True)
    link = models.URLField(_("link"), blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    at = models.DateTimeField(_("acknowledged at"), auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.change}"


class Bisect(models.Model):
    """Narrowing a change between two minors of one major to adjacent minors, one study per step.

    RUNNING -> FOUND (first_changed set) | NO_CHANGE (the ends do not differ) | INCONCLUSIVE (a step's verdict
    could not be reached within its cap) | FAILED (a step's study failed or was cancelled, or the design of its next
    step was refused).
    """

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FOUND = "found", _("found")
        NO_CHANGE = "no_change", _("no change between the ends")
        INCONCLUSIVE = "inconclusive", _("inconclusive")
        FAILED = "failed", _("failed")

    change = models.ForeignKey(ChangePoint, on_delete=models.SET_NULL, null=True, blank=True, related_name="bisects")
    template = models.ForeignKey(Study, verbose_name=_("design from"), on_delete=models.PROTECT, related_name="+")
    scenario = models.ForeignKey(Scenario, verbose_name=_("scenario"), on_delete=models.PROTECT)
    clients = models.PositiveIntegerField(_("clients"))
    builds = models.JSONField(_("minors, oldest first (build ids)"), default=list)
    low = models.PositiveSmallIntegerField(default=0)
    high = models.PositiveSmallIntegerField(default=0)
    direction = models.CharField(_("direction"), max_length=10, blank=True)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.RUNNING)
    first_changed = models.ForeignKey(
        Build, verbose_name=_("first minor with the change"), on_delete=models.PROTECT, null=True, related_name="+"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    def __str__(self) -> str:
        return f"bisect {self.pk}"

    def minors(self) -> list[Build]:
        """The bisect's minors, oldest first (`low`, `high` and each step's indexes point into this list)."""
        by_id = Build.objects.in_bulk(self.builds)
        return [by_id[pk] for pk in self.builds if pk in by_id]


class BisectStep(models.Model):
    """One study of a bisect: the minor at `low` (baseline) against the one at `compared`, and its verdict."""

    bisect = models.ForeignKey(Bisect, on_delete=models.CASCADE, related_name="steps")
    number = models.PositiveSmallIntegerField(_("step"))
    study = models.OneToOneField(Study, on_delete=models.PROTECT, related_name="bisect_step")
    low = models.PositiveSmallIntegerField()
    compared = models.PositiveSmallIntegerField()
    verdict = models.CharField(_("verdict"), max_length=16, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["bisect", "number"], name="bisect_step_once")]

    def __str__(self) -> str:
        return f"bisect {self.bisect_id} step {self.number}"

    def verdict_label(self) -> str:
        """The verdict in the reader's language: a study's (faster, slower, can't tell), or SAME's."""
        if self.verdict == SAME:
            return str(_("no difference"))
        if self.verdict in set(Verdict):
            return str(VERDICT_LABELS[Verdict(self.verdict)])
        return self.verdict
