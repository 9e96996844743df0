"""Pages over what we run on: hosts with their facts and noise check, and PostgreSQL builds."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.access import read_access
from benchdash.celery import NOISE_CHECK_TASK, app, host_queue
from benchdash.inventory.facts_display import fact_rows, latest_facts
from benchdash.inventory.models import Build, Host
from benchdash.inventory.noise_display import noise_summary

# Checking a host runs commands on it, as a study does: the same people may.
NOISE_CHECK_PERMISSION = "studies.add_study"


@read_access
def hosts(request: HttpRequest) -> HttpResponse:
    host_list = Host.objects.annotate(study_count=Count("db_studies", distinct=True))
    return render(request, "inventory/hosts.html", {"hosts": host_list})


@read_access
def host_detail(request: HttpRequest, pk: int) -> HttpResponse:
    host = get_object_or_404(Host, pk=pk)
    facts, facts_read_at = latest_facts(host)
    ctx = {
        "host": host,
        "facts": fact_rows(facts),
        "facts_read_at": facts_read_at,
        "studies": host.db_studies.order_by("-year", "-created_at")[:50],
        "noise": noise_summary(host.noise_check),
        "can_check_noise": request.user.has_perm(NOISE_CHECK_PERMISSION),
    }
    return render(request, "inventory/host_detail.html", ctx)


@login_required
@permission_required(NOISE_CHECK_PERMISSION, raise_exception=True)
@require_POST
def host_noise_check(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue a noise check of the host (workers.tasks.check_host_noise); its report lands on this page."""
    host = get_object_or_404(Host, pk=pk)
    try:
        app.send_task(NOISE_CHECK_TASK, (host.pk,), queue=host_queue(host.name), ignore_result=True)
    except BrokerUnreachable:
        messages.warning(request, _("The queue (Redis) cannot be reached now: nothing was checked."))
    else:
        messages.success(request, _("Noise check queued: it takes a few seconds; reload this page."))
    return redirect("inventory:host_detail", pk=host.pk)


@read_access
def builds(request: HttpRequest) -> HttpResponse:
    build_list = Build.objects.annotate(study_count=Count("studies", distinct=True))
    return render(request, "inventory/builds.html", {"builds": build_list})
