"""The new-study page on a cloud template: preview (instances, time, cost) and queue (launch, then run)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from benchdash.cloud.creation import cloud_study_create
from benchdash.cloud.forms import CloudStudyForm

QUEUE_PERMISSION = "studies.add_study"


@login_required
@permission_required(QUEUE_PERMISSION, raise_exception=True)
def cloud_study_new(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST "preview" shows trials, time and cost; POST "queue" saves and launches."""
    form = CloudStudyForm(request.POST) if request.method == "POST" else CloudStudyForm()
    if request.method == "POST" and form.is_valid() and "queue" in request.POST:
        cloud = cloud_study_create(
            template=form.cleaned_data["template"],
            design=form.design(),
            study_seconds=form.estimated_seconds(),
            created_by=request.user,
        )
        messages.success(request, _("Study saved: its instances are being launched; it runs once they are ready."))
        return redirect("studies:detail", pk=cloud.study_id)
    preview = form.preview() if form.is_bound and form.is_valid() else None
    ctx = {"form": form, "preview": preview, "presets": form.preset_defaults()}
    return render(request, "cloud/new.html", ctx)
