"""Pages over what we run on: hosts with their facts and noise check, and PostgreSQL builds."""

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from benchdash.access import read_access
from benchdash.inventory.facts_display import fact_rows, latest_facts
from benchdash.inventory.models import Build, Host, Installation
from benchdash.inventory.noise_display import noise_summary

# Checking a host or clearing its work dir runs commands on it, as a study does: the same people may.
NOISE_CHECK_PERMISSION = "studies.add_study"


@read_access
def hosts(request: HttpRequest) -> HttpResponse:
    host_list = Host.objects.annotate(study_count=Count("db_studies", distinct=True))
    return render(request, "inventory/hosts.html", {"hosts": host_list})


@read_access
def host_detail(request: HttpRequest, pk: int) -> HttpResponse:
    host = get_object_or_404(Host, pk=pk)
    facts, facts_read_at = latest_facts(host)
    may_run_commands = request.user.has_perm(NOISE_CHECK_PERMISSION)
    ctx = {
        "host": host,
        "facts": fact_rows(facts),
        "facts_read_at": facts_read_at,
        "studies": host.db_studies.order_by("-year", "-created_at")[:50],
        "noise": noise_summary(host.noise_check),
        "can_check_noise": may_run_commands,
        "can_clear_work_dir": may_run_commands,
        "pristine_keep_days": settings.PRISTINE_KEEP_DAYS,
        "installation": Installation.current_token(),
        "calibrations": host.calibrations.select_related("scenario", "study").order_by("-pk")[:10],
        "can_calibrate": request.user.has_perm("studies.add_study"),
    }
    return render(request, "inventory/host_detail.html", ctx)


@read_access
def builds(request: HttpRequest) -> HttpResponse:
    build_list = Build.objects.annotate(study_count=Count("studies", distinct=True))
    return render(request, "inventory/builds.html", {"builds": build_list})
