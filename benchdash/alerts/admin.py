from django.contrib import admin

from benchdash.alerts.models import Alert, Subscription


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ["member", "watch", "series_key", "scenario", "host", "by_email", "webhook_url", "trial"]
    exclude = ["webhook_secret_encrypted"]


@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = ["subject", "subscription", "kind", "status", "attempts", "created_at", "sent_at"]
    list_filter = ["status", "kind"]
    readonly_fields = ["payload"]
