"""Two studies, builds or variants side by side at a link a member can paste into a report (`/compare/`)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from benchdash.access import read_access
from benchdash.changes.compare_page import side_by_side
from benchdash.changes.explanation import RULE
from benchdash.changes.forms import CompareForm
from benchdash.changes.sides import REF_HELP


@read_access
def compare_sides(request: HttpRequest) -> HttpResponse:
    """`?a=<ref>&b=<ref>`: b against a; a bad or missing ref answers 400, naming its parameter."""
    form = CompareForm(request.GET)
    if not form.is_valid():
        return render(request, "changes/compare_refused.html", {"form": form, "ref_help": REF_HELP}, status=400)
    ctx = {"page": side_by_side(form.cleaned_data["a"], form.cleaned_data["b"]), "rule": RULE}
    return render(request, "changes/compare.html", ctx)
