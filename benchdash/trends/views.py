"""The home page: how each version did against the one before, chained across the years."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from benchdash.access import read_access
from benchdash.studies.models import Study
from benchdash.trends.page import trend_sections
from benchdash.trends.queries import trends_data


@read_access
def index(request: HttpRequest) -> HttpResponse:
    trends = trends_data()
    studies = Study.objects.in_bulk({ref.study_id for trend in trends for ref in trend.studies})
    return render(request, "trends/index.html", {"sections": trend_sections(trends, studies)})
