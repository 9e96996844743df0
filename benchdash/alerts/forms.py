from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.alerts.delivery import webhook_url_problem
from benchdash.alerts.models import Subscription, Watch

SERIES_PREFIXES = ("trend:", "study:", "host:")
MIN_SECRET_LENGTH = 16
WATCHED_FIELD = {Watch.SERIES.value: "series_key", Watch.SCENARIO.value: "scenario", Watch.HOST.value: "host"}


class SubscriptionForm(forms.ModelForm):
    """What to watch (the field its choice names must be given), and at least one channel; a webhook with its URL
    checked as hosts' addresses are, and a shared secret."""

    # A URL given without its scheme is read as https, as Django 6 will read every one.
    webhook_url = forms.URLField(label=_("webhook URL"), required=False, assume_scheme="https")
    webhook_secret = forms.CharField(
        label=_("webhook shared secret"),
        required=False,
        widget=forms.PasswordInput,
        help_text=_("At least 16 characters; each webhook body is signed with it (X-Benchdash-Signature)."),
    )

    class Meta:
        model = Subscription
        fields = ["watch", "series_key", "scenario", "host", "by_email", "webhook_url", "trial"]
        help_texts = {"series_key": _("As the changes page names it: trend:…, study:… or host:…")}

    def __init__(self, *args: object, member: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.member = member

    def clean_series_key(self) -> str:
        key = str(self.cleaned_data.get("series_key") or "").strip()
        if key and not key.startswith(SERIES_PREFIXES):
            raise forms.ValidationError(_("A series key starts with trend:, study: or host:."))
        return key

    def clean_webhook_url(self) -> str:
        url = str(self.cleaned_data.get("webhook_url") or "")
        if url and (problem := webhook_url_problem(url)) is not None:
            raise forms.ValidationError(_("benchdash does not send to this address: %(why)s"), params={"why": problem})
        return url

    def clean(self) -> dict:
        data = super().clean() or {}
        watched = WATCHED_FIELD.get(str(data.get("watch")))
        if watched and not data.get(watched):
            self.add_error(watched, _("Say which one to watch."))
        if not data.get("by_email") and not data.get("webhook_url"):
            raise forms.ValidationError(_("Choose a channel: e-mail, a webhook or both."))
        if data.get("by_email") and not getattr(self.member, "email", ""):
            self.add_error("by_email", _("Your account has no e-mail address."))
        if data.get("webhook_url") and len(data.get("webhook_secret") or "") < MIN_SECRET_LENGTH:
            self.add_error("webhook_secret", _("A webhook needs a shared secret of at least 16 characters."))
        return data

    def save(self, commit: bool = True) -> Subscription:
        subscription: Subscription = super().save(commit=False)
        subscription.member = self.member  # type: ignore[assignment]
        watch = subscription.watch
        subscription.series_key = subscription.series_key if watch == Watch.SERIES else ""
        subscription.scenario = subscription.scenario if watch == Watch.SCENARIO else None
        subscription.host = subscription.host if watch == Watch.HOST else None
        subscription.webhook_secret = self.cleaned_data["webhook_secret"] if subscription.webhook_url else ""
        if commit:
            subscription.save()
        return subscription
