"""The report files: a study's, or every official study of a year's, as PDF, PPTX or a zip of CSVs, in Japanese or
English. Rendered in the request: the 2021 study's PDF takes well under a second (bench/report_files.py).

The renderers are named, not imported: ReportLab and python-pptx take a fifth of a second to import, which every
process that loads the URLs (each web server worker, manage.py check) would otherwise pay at its start."""

from collections.abc import Callable, Sequence

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import translation
from django.utils.http import content_disposition_header
from django.utils.module_loading import import_string
from django.views.decorators.http import require_GET

from benchdash.access import read_access
from benchdash.reports.bundle import report_zip
from benchdash.reports.content import StudyReport, report_title, study_report, year_reports
from benchdash.studies.models import Study

PPTX_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
Renderer = Callable[[Sequence[StudyReport], str], bytes]


def _imported_on_use(path: str) -> Renderer:
    return lambda reports, title: import_string(path)(reports, title)


FORMATS: dict[str, tuple[Renderer, str]] = {
    "pdf": (_imported_on_use("benchdash.reports.pdf.report_pdf"), "application/pdf"),
    "pptx": (_imported_on_use("benchdash.reports.slides.report_pptx"), PPTX_TYPE),
    "zip": (lambda reports, _title: report_zip(reports), "application/zip"),  # a bundle has no title page
}


@require_GET
@read_access
def study_report_file(request: HttpRequest, pk: int, language: str, extension: str) -> HttpResponse:
    study = get_object_or_404(Study.objects.select_related("db_host", "client_host", "baseline"), pk=pk)
    with translation.override(language):
        reports = [study_report(study, site_url=_site_url(request))]
        return _file(reports, report_title(reports), f"benchdash-study-{pk}-report-{language}", extension)


@require_GET
@read_access
def year_report_file(request: HttpRequest, year: int, language: str, extension: str) -> HttpResponse:
    with translation.override(language):
        reports = year_reports(year, site_url=_site_url(request))
        if not reports:
            raise Http404(f"no official study in {year}")
        return _file(reports, report_title(reports, year), f"benchdash-{year}-report-{language}", extension)


def _file(reports: Sequence[StudyReport], title: str, name: str, extension: str) -> HttpResponse:
    render, content_type = FORMATS[extension]
    response = HttpResponse(render(reports, title), content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=f"{name}.{extension}")
    return response


def _site_url(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")
