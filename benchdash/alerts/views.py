"""A member's own subscriptions: the list with the alerts they raised, a new one, removing one."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from benchdash.alerts.forms import SubscriptionForm
from benchdash.alerts.models import Alert, Subscription, Watch

RECENT_ALERTS = 50


@login_required
def subscription_list(request: HttpRequest) -> HttpResponse:
    """GET: the member's subscriptions and recent alerts, and the form (to watch the series `?series_key=` names, from a
    change's page); POST: a new subscription."""
    member: User = request.user  # type: ignore[assignment]  # login_required
    watching = {"watch": Watch.SERIES, "series_key": request.GET["series_key"]} if "series_key" in request.GET else {}
    form = SubscriptionForm(request.POST or None, member=member, initial=watching)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Subscribed."))
        return redirect("alerts:list")
    mine = Subscription.objects.filter(member=member).select_related("scenario", "host")
    alerts = Alert.objects.filter(subscription__member=member).select_related("subscription")
    ctx = {"form": form, "subscriptions": mine, "alerts": alerts[:RECENT_ALERTS]}
    return render(request, "alerts/list.html", ctx, status=400 if form.errors else 200)


@login_required
@require_POST
def subscription_delete(request: HttpRequest, pk: int) -> HttpResponse:
    member: User = request.user  # type: ignore[assignment]  # login_required
    get_object_or_404(Subscription, pk=pk, member=member).delete()
    messages.success(request, _("Subscription removed."))
    return redirect("alerts:list")
