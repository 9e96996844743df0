"""Running studies from the pages: the new-study form, cancel, retry of failed trials, progress JSON."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from benchdash.access import read_access
from benchdash.studies import services
from benchdash.studies.forms import StudyForm
from benchdash.studies.models import Study
from benchdash.studies.progress import study_progress

QUEUE_PERMISSION = "studies.add_study"


@login_required
@permission_required(QUEUE_PERMISSION, raise_exception=True)
def study_new(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST "preview" shows the trial count and time; POST "queue" saves and queues."""
    form = StudyForm(request.POST) if request.method == "POST" else StudyForm()
    if request.method == "POST" and form.is_valid() and "queue" in request.POST:
        study = services.study_create(data=form.cleaned_data, created_by=request.user)
        services.study_enqueue(study=study)
        messages.success(request, _("Study queued: %(count)s trials.") % {"count": study.trials.count()})
        return redirect("studies:detail", pk=study.pk)
    preview = form.preview() if form.is_bound and form.is_valid() else None
    ctx = {"form": form, "preview": preview, "presets": form.preset_defaults()}
    return render(request, "studies/new.html", ctx)


@login_required
@permission_required(QUEUE_PERMISSION, raise_exception=True)
@require_POST
def study_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    if services.study_cancel(study=study):
        messages.success(request, _("Study cancelled; finished trials are kept."))
    else:
        messages.warning(request, _("Only a queued or running study can be cancelled."))
    return redirect("studies:detail", pk=pk)


@login_required
@permission_required(QUEUE_PERMISSION, raise_exception=True)
@require_POST
def study_retry_failed(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    count = services.study_retry_failed(study=study)
    messages.success(request, _("%(count)s failed trials queued again.") % {"count": count})
    return redirect("studies:detail", pk=pk)


@read_access
def study_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    study = get_object_or_404(Study, pk=pk)
    return JsonResponse(study_progress(study).to_dict())
