"""The mark that makes a study count in the trends (official): its quality first, then the decision.

GET .../official/confirm/ shows the study's figures against the rules for an official study (studies/quality.py)
and asks for confirmation; below a rule it asks for a written reason. POST .../official/ with official=true and
confirm marks it (a POST without confirm is sent to the screen first); official=false takes it out.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from benchdash.studies.lifecycle.official import study_mark_official
from benchdash.studies.models import Study
from benchdash.studies.quality import study_quality

OFFICIAL_PERMISSION = "studies.mark_official"


@login_required
@permission_required(OFFICIAL_PERMISSION, raise_exception=True)
@require_GET
def study_official_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    return _confirm_page(request, study, error="")


@login_required
@permission_required(OFFICIAL_PERMISSION, raise_exception=True)
@require_POST
def study_official(request: HttpRequest, pk: int) -> HttpResponse:
    """POST official=true (with confirm, and a reason below the rules) includes the study in the trends,
    official=false takes it out."""
    study = get_object_or_404(Study, pk=pk)
    if request.POST.get("official") != "true":
        study_mark_official(study, False)
        messages.success(request, _("The study no longer counts in the trends."))
        return redirect("studies:detail", pk=pk)
    if not request.POST.get("confirm"):
        return redirect("studies:official_confirm", pk=pk)
    below = not study_quality(study).meets_rules
    reason = request.POST.get("reason", "").strip()
    if below and not reason:
        return _confirm_page(request, study, error=_("Below the rules, write why this study should count."))
    if not study_mark_official(study, True, by=request.user, reason=reason if below else ""):
        messages.warning(request, _("A study counts in the trends only once nothing of it runs any more."))
    else:
        messages.success(request, _("The study is official: it counts in the trends."))
    return redirect("studies:detail", pk=pk)


def _confirm_page(request: HttpRequest, study: Study, *, error: str) -> HttpResponse:
    reason = request.POST.get("reason", "")
    context = {"study": study, "quality": study_quality(study), "error": error, "reason": reason}
    return render(request, "studies/official_confirm.html", context, status=400 if error else 200)
