"""What a design detects on a host, measured (issue 42, point 3): a calibration study's A/A and injected slowdowns,
resampled into studies (studies/results/calibration.py), kept per host, its kind and the design."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Host
from benchdash.studies.models.scenario import Scenario
from benchdash.studies.models.study import Study


class DesignKind(models.TextChoices):
    """How a design runs its sides: one after the other (sequential), or both at once on one host (duet, point 5)."""

    SEQUENTIAL = "sequential", _("sequential")
    DUET = "duet", _("duet")


class CalibrationQuerySet(models.QuerySet["Calibration"]):
    def measured(self) -> "CalibrationQuerySet":
        return self.filter(measured_at__isnull=False).order_by("-measured_at")


class Calibration(models.Model):
    """One calibration of one design on one host: PENDING (its study runs) -> MEASURED (measured_at set, detections
    stored) or left unmeasured when its study failed before two complete rounds.

    detections: [{"runs": 3, "studies": 10, "false_alarms": 0, "called": {"2": 3, "5": 9}}, ...] (runs a side);
    real_effects: {"2": 0.019, ...}, each injected size's slowdown as its runs measured it.
    """

    study = models.OneToOneField(Study, verbose_name=_("study"), on_delete=models.CASCADE, related_name="calibration")
    host = models.ForeignKey(Host, verbose_name=_("host"), on_delete=models.CASCADE, related_name="calibrations")
    # The host's kind when it was measured (inventory/host_kind.HostKind's fields; empty: none known).
    host_kind = models.JSONField(_("host kind"), default=dict, blank=True)
    design_kind = models.CharField(
        _("design kind"), max_length=12, choices=DesignKind.choices, default=DesignKind.SEQUENTIAL
    )
    scenario = models.ForeignKey(Scenario, verbose_name=_("scenario"), on_delete=models.PROTECT, related_name="+")
    clients = models.PositiveIntegerField(_("clients"))
    duration_s = models.PositiveIntegerField(_("duration (s)"))
    threshold = models.FloatField(_("threshold"))
    rounds = models.PositiveSmallIntegerField(_("rounds"))
    sizes = models.JSONField(_("injected slowdowns (%)"), default=list)
    real_effects = models.JSONField(_("measured effect of each slowdown"), default=dict, blank=True)
    detections = models.JSONField(_("detections"), default=list, blank=True)
    measured_at = models.DateTimeField(_("measured at"), null=True, blank=True)

    objects = CalibrationQuerySet.as_manager()

    class Meta:
        verbose_name = _("calibration")
        verbose_name_plural = _("calibrations")
        # host_calibrations and the preview's match: a host's measured calibrations, newest first.
        indexes = [models.Index(fields=["host", "-measured_at"], name="calibration_host_measured_idx")]

    def __str__(self) -> str:
        return f"calibration {self.pk} of {self.host} ({self.scenario}, {self.clients} clients)"

    @property
    def effects_measured(self) -> list[tuple[str, str]]:
        """(nominal size, measured effect) in words, by size: "5", "4.8%"."""
        return [(str(size), f"{self.real_effects.get(str(size), 0):.1%}") for size in self.sizes]
