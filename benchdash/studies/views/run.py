"""Running studies from the pages: the new-study form, cancel, retry of failed trials and progress JSON (the mark
that makes a study count in the trends is in official.py)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from benchdash.access import read_access
from benchdash.inventory.models import Host
from benchdash.studies.forms import StudyForm
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.calibration import CalibrationRefused, calibration_of_last_study
from benchdash.studies.lifecycle.progress import study_progress
from benchdash.studies.models import Study
from benchdash.studies.rerun import rerun_initial

QUEUE_PERMISSION = "studies.add_study"
CANCEL_PERMISSION = "studies.cancel_study"
QUEUE_UNREACHABLE = gettext_lazy(
    "Study saved and queued: %(count)s trials. The queue (Redis) cannot be reached now: the study starts once it can."
)


@login_required
@permission_required(QUEUE_PERMISSION, raise_exception=True)
def study_new(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST "preview" shows the trial count and time; POST "queue" saves and queues."""
    initial = rerun_initial(request.GET.get("from"))
    if initial is None:
        messages.warning(request, _("There is no study %(id)s to run again.") % {"id": request.GET["from"]})
    form = StudyForm(request.POST) if request.method == "POST" else StudyForm(initial=initial or {})
    if request.method == "POST" and form.is_valid() and "queue" in request.POST:
        study = services.study_create(design=form.design(), created_by=request.user)
        count = {"count": study.trials.count()}
        if services.study_enqueue(study=study) == services.Queued.WAITING_FOR_BROKER:
            messages.warning(request, QUEUE_UNREACHABLE % count)
        else:
            messages.success(request, _("Study queued: %(count)s trials.") % count)
        return redirect("studies:detail", pk=study.pk)
    preview = form.preview() if form.is_bound and form.is_valid() else None
    ctx = {"form": form, "preview": preview, "presets": form.preset_defaults()}
    return render(request, "studies/new.html", ctx)


@login_required
@permission_required(CANCEL_PERMISSION, raise_exception=True)
@require_POST
def study_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    if services.study_cancel(study=study):
        messages.success(request, _("Study cancelled; finished trials are kept."))
    else:
        messages.warning(request, _("Only a study that has not ended can be cancelled."))
    return redirect("studies:detail", pk=pk)


@login_required
@permission_required(CANCEL_PERMISSION, raise_exception=True)
@require_POST
def study_retry_failed(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    repeating = services.repeating_failures(study=study)
    count = services.study_retry_failed(study=study)
    messages.success(request, _("%(count)s failed trials queued again.") % {"count": count})
    for error in repeating:
        message = _(
            "Some of them failed for a cause that repeats, and nothing benchdash ran since has changed it: unless "
            "the study's settings, its build or its DB host changed, they will fail the same way. %(error)s"
        )
        messages.warning(request, message % {"error": error})
    return redirect("studies:detail", pk=pk)


@read_access
def study_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    study = get_object_or_404(Study, pk=pk)
    return JsonResponse(study_progress(study).to_dict())


@login_required
@permission_required(QUEUE_PERMISSION, raise_exception=True)
@require_POST
def host_calibrate(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue a calibration of the host's last study's design (lifecycle/calibration.py)."""
    host = get_object_or_404(Host, pk=pk)
    try:
        calibration = calibration_of_last_study(host=host, created_by=request.user)
    except CalibrationRefused as refused:
        messages.error(request, _("The calibration was not queued: %(reason)s") % {"reason": refused})
        return redirect("inventory:host_detail", pk=pk)
    services.study_enqueue(study=calibration.study)
    messages.success(request, _("Calibration queued: its study runs now."))
    return redirect("studies:detail", pk=calibration.study_id)
