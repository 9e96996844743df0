"""API tokens: what a member's scripts show to read the API in the member's name."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def usable(self) -> "ApiTokenQuerySet":
        """Tokens that still open the API: not revoked, and their member still active."""
        return self.filter(revoked_at__isnull=True, user__is_active=True)


class ApiToken(models.Model):
    """A read token for scripts. Only its SHA-256 digest is kept: the token itself is shown once, when made.

    The token is 256 random bits, so a plain digest is as hard to reverse as the token is to guess; a slow
    password hash would only slow every API request.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("member"), on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=100)
    # The token's first characters, so that a member can tell their tokens apart.
    prefix = models.CharField(_("starts with"), max_length=16, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.user} {self.name} ({self.prefix}…)"
