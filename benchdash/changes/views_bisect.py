"""Bisect pages: start one from a change (the button) or from the form, and follow its steps."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from benchdash.access import read_access
from benchdash.changes.bisection import most_studies
from benchdash.changes.bisects import BisectRefused, bisect_create, minors_between
from benchdash.changes.forms import BisectForm
from benchdash.changes.models import Bisect, ChangePoint
from benchdash.changes.roles import BISECT_PERMISSION


@login_required
@permission_required(BISECT_PERMISSION, raise_exception=True)
@require_POST
def bisect_from_change(request: HttpRequest, pk: int) -> HttpResponse:
    """The button on a change between two minors: bisect over the registered minors between them."""
    change = get_object_or_404(ChangePoint.objects.select_related("before_build", "after_build", "after_study"), pk=pk)
    try:
        if not (change.before_build and change.after_build and change.after_study and change.scenario):
            raise BisectRefused("this change does not lie between two builds of a study")
        builds = minors_between(change.before_build, change.after_build)
        clients = change.clients or max(change.after_study.client_levels)
        bisect = bisect_create(
            template=change.after_study,
            scenario=change.scenario,
            clients=clients,
            builds=builds,
            change=change,
            by=request.user,
        )
    except BisectRefused as error:
        messages.error(request, _("The bisect was not started: %(reason)s") % {"reason": error})
        return redirect("changes:detail", pk=pk)
    return redirect("changes:bisect", pk=bisect.pk)


@login_required
@permission_required(BISECT_PERMISSION, raise_exception=True)
def bisect_new(request: HttpRequest) -> HttpResponse:
    form = BisectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            bisect = bisect_create(
                template=data["template"],
                scenario=data["scenario"],
                clients=data["clients"],
                builds=data["builds"],
                by=request.user,
            )
        except BisectRefused as error:
            form.add_error(None, str(error))
        else:
            return redirect("changes:bisect", pk=bisect.pk)
    return render(request, "changes/bisect_new.html", {"form": form})


@read_access
def bisect_detail(request: HttpRequest, pk: int) -> HttpResponse:
    bisect = get_object_or_404(Bisect.objects.select_related("first_changed", "scenario", "change"), pk=pk)
    minors = bisect.minors()
    steps = [(step, minors[step.low], minors[step.compared]) for step in bisect.steps.select_related("study")]
    ctx = {"bisect": bisect, "minors": minors, "steps": steps, "most": most_studies(len(minors))}
    return render(request, "changes/bisect.html", ctx)
