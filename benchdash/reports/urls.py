from django.urls import re_path

from benchdash.reports import views

# The language and the format are in the name: /reports/study-1.ja.pdf, /reports/2021.en.pptx, /reports/2021.ja.zip
FILE = r"\.(?P<language>ja|en)\.(?P<extension>pdf|pptx|zip)$"

app_name = "reports"
urlpatterns = [
    re_path(r"^study-(?P<pk>[0-9]+)" + FILE, views.study_report_file, name="study_file"),
    re_path(r"^(?P<year>[0-9]{4})" + FILE, views.year_report_file, name="year_file"),
]
