"""The changes pages: every change point by series, one change with its explanation card, acknowledging, and a
minor series' TPS per minor."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from benchdash.access import read_access
from benchdash.changes.card import change_card, compare_query
from benchdash.changes.events import change_events
from benchdash.changes.explanation import RULE
from benchdash.changes.forms import AcknowledgeForm
from benchdash.changes.models import ChangePoint
from benchdash.changes.pages import change_figure, minor_changes, minor_figures, series_blocks
from benchdash.changes.roles import ACKNOWLEDGE_PERMISSION
from benchdash.changes.services import change_acknowledge
from benchdash.studies.models import Study

SHOWN = {"new": ChangePoint.objects.new, "all": ChangePoint.objects.all}


@read_access
def change_list(request: HttpRequest) -> HttpResponse:
    shown = request.GET.get("show", "all") if request.GET.get("show") in SHOWN else "all"
    changes = SHOWN[shown]().select_related("acknowledgement").order_by("-official", "series_key", "index")
    ctx = {"blocks": series_blocks(changes), "shown": shown, "new_count": ChangePoint.objects.new().count()}
    return render(request, "changes/list.html", ctx)


@read_access
def change_detail(request: HttpRequest, pk: int) -> HttpResponse:
    change = get_object_or_404(ChangePoint.objects.select_related("acknowledgement", "scenario"), pk=pk)
    ctx = _detail_ctx(change) | {"form": AcknowledgeForm(instance=getattr(change, "acknowledgement", None))}
    return render(request, "changes/detail.html", ctx)


def _detail_ctx(change: ChangePoint) -> dict[str, object]:
    return {
        "change": change,
        "figure": change_figure(change),
        "card": change_card(change),
        "events": change_events(change),
        "compare_query": compare_query(change),
        "rule": RULE,
    }


@login_required
@permission_required(ACKNOWLEDGE_PERMISSION, raise_exception=True)
@require_POST
def change_acknowledge_view(request: HttpRequest, pk: int) -> HttpResponse:
    change = get_object_or_404(ChangePoint, pk=pk)
    form = AcknowledgeForm(request.POST)
    if not form.is_valid():
        return render(request, "changes/detail.html", _detail_ctx(change) | {"form": form}, status=400)
    change_acknowledge(change=change, data=form.cleaned_data, by=request.user)
    messages.success(request, _("The change is acknowledged: it stays listed, no longer new."))
    return redirect("changes:detail", pk=pk)


@read_access
def minor_series(request: HttpRequest, study_id: int) -> HttpResponse:
    """A study's TPS per minor per client level with intervals, and its changes marked."""
    study = get_object_or_404(Study, pk=study_id)
    changes = minor_changes(study)
    ctx = {"study": study, "figures": minor_figures(study, changes), "changes": changes}
    return render(request, "changes/minors.html", ctx)
