"""Members' subscriptions to alerts, and each alert raised for one.

An Alert is raised once per subscription and event (a new change point, or an official study's faster/slower
verdicts). A trial subscription's alerts are RECORDED and never sent; the others go PENDING -> SENT, or FAILED once
the task's retries are spent (benchdash/alerts/services.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchdash.alerts.secrets import secret_decrypt, secret_encrypt
from benchdash.changes.models import ChangePoint
from benchdash.inventory.models import Host
from benchdash.studies.models import Scenario, Study


class Watch(models.TextChoices):
    SERIES = "series", _("a series")
    SCENARIO = "scenario", _("a scenario")
    HOST = "host", _("a host")


class Subscription(models.Model):
    """What a member watches (one series key, one scenario or one host) and where alerts go (e-mail, a webhook or
    both). Improvements alert as slowdowns do. In trial mode alerts are recorded, not sent."""

    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="subscriptions")
    watch = models.CharField(_("watches"), max_length=10, choices=Watch.choices)
    series_key = models.CharField(_("series"), max_length=200, blank=True)
    scenario = models.ForeignKey(Scenario, verbose_name=_("scenario"), on_delete=models.CASCADE, null=True, blank=True)
    host = models.ForeignKey(Host, verbose_name=_("host"), on_delete=models.CASCADE, null=True, blank=True)
    by_email = models.BooleanField(_("by e-mail"), default=True)
    webhook_url = models.URLField(_("webhook URL"), blank=True)
    webhook_secret_encrypted = models.TextField(blank=True)
    trial = models.BooleanField(_("trial mode (record, do not send)"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["member", "pk"]

    def __str__(self) -> str:
        return f"{self.member} watches {self.watched}"

    @property
    def watched(self) -> str:
        if self.watch == Watch.SCENARIO and self.scenario is not None:
            return self.scenario.slug
        if self.watch == Watch.HOST and self.host is not None:
            return self.host.name
        return self.series_key

    def covers(self, *, series_key: str, scenario_id: int | None, official: bool) -> bool:
        """Whether a series is one this subscription watches (raising.change_subscriptions asks the same of the
        store)."""
        if self.watch == Watch.SCENARIO:
            return official and scenario_id is not None and scenario_id == self.scenario_id
        if self.watch == Watch.HOST:
            return self.host is not None and series_key.startswith(f"host:{self.host.name}:")
        return series_key == self.series_key

    @property
    def webhook_secret(self) -> str:
        return secret_decrypt(self.webhook_secret_encrypted)

    @webhook_secret.setter
    def webhook_secret(self, secret: str) -> None:
        self.webhook_secret_encrypted = secret_encrypt(secret)


class Alert(models.Model):
    """One alert of one subscription: its subject and text as sent, the webhook's JSON, and how sending went."""

    class Kind(models.TextChoices):
        CHANGE = "change", _("new change point")
        VERDICT = "verdict", _("official study's verdict")

    class Status(models.TextChoices):
        RECORDED = "recorded", _("recorded (trial mode)")
        PENDING = "pending", _("sending")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")

    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, related_name="alerts")
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    change = models.ForeignKey(ChangePoint, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    study = models.ForeignKey(Study, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # What the alert is about, so that it is raised once per subscription: "change:<id>" or "study:<id>".
    event = models.CharField(max_length=100)
    series_key = models.CharField(_("series"), max_length=200, blank=True)
    improvement = models.BooleanField(_("improvement"), default=False)
    subject = models.CharField(_("subject"), max_length=300)
    text = models.TextField(_("text"))
    payload = models.JSONField(default=dict)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.TextField(_("error"), blank=True)
    created_at = models.DateTimeField(_("raised"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["subscription", "event"], name="alert_once_per_event")]

    def __str__(self) -> str:
        return self.subject
