"""A trial's own page (its per-second curves, collectors and profile) and the download of its raw files."""

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from benchdash.access import read_access
from benchdash.studies.evidence.trial_page import trial_evidence_view
from benchdash.studies.models import Artifact, Trial


@read_access
def trial_detail(request: HttpRequest, pk: int) -> HttpResponse:
    trial = get_object_or_404(
        Trial.objects.select_related("study__db_host", "build", "scenario", "evidence", "variant"),
        pk=pk,
        published=False,
    )
    ctx = {
        "trial": trial,
        "study": trial.study,
        "evidence": trial_evidence_view(trial),
        "artifacts": trial.artifacts.order_by("kind"),
    }
    return render(request, "studies/trial.html", ctx)


@require_GET
@read_access
def artifact_download(request: HttpRequest, pk: int) -> FileResponse:
    """The raw file, streamed from the storage (local disk or S3) to whoever may read the study."""
    artifact = get_object_or_404(Artifact.objects.select_related("trial"), pk=pk)
    try:
        handle = artifact.file.open("rb")
    except OSError:
        raise Http404("the file is no longer in the storage") from None
    return FileResponse(handle, as_attachment=True, filename=artifact.download_name, content_type=artifact.content_type)
