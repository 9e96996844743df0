"""CSV download of the trends: the chained version index and every study's medians."""

from django.http import HttpRequest, StreamingHttpResponse
from django.views.decorators.http import require_GET

from benchdash.access import read_access
from benchdash.studies.csv_export import csv_response, python_csv
from benchdash.trends.csv_export import TRENDS_HEADER, trends_rows
from benchdash.trends.queries import trends_data


@require_GET
@read_access
def trends_csv(request: HttpRequest) -> StreamingHttpResponse:
    return csv_response("benchdash-trends.csv", python_csv(TRENDS_HEADER, trends_rows(trends_data())))
