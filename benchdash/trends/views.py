"""The home page: how each version did against the one before, chained across the years."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from benchdash.access import read_access
from benchdash.studies.models import Study
from benchdash.trends.coverage import history_coverage
from benchdash.trends.page import trend_sections
from benchdash.trends.queries import trends_data
from benchdash.trends.versions import version_history


@read_access
def index(request: HttpRequest) -> HttpResponse:
    trends = trends_data()
    studies = Study.objects.in_bulk({ref.study_id for trend in trends for ref in trend.studies})
    ctx = {"sections": trend_sections(trends, studies), "coverage": history_coverage(timezone.localdate().year)}
    return render(request, "trends/index.html", ctx)


@read_access
def version(request: HttpRequest, version: str) -> HttpResponse:
    """Every figure of a major (/versions/14/) or a minor (/versions/14.3/) from every study."""
    return render(request, "trends/version.html", {"history": version_history(version)})
