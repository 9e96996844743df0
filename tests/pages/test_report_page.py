"""The report view: the seeds' table (clients down, builds across, median TPS, 前バージョン比), its wide CSV, and
the notes and conclusions that members with the permission write."""

import csv
import io
import re

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study_2021(db):
    call_command("load_presets", stdout=io.StringIO())
    return Study.objects.get(year=2021)


def report_rows(page: str) -> list[list[str]]:
    body = re.search(r'<table class="data report-table">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return [
        [re.sub(r"<[^>]+>|\s+", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_it_mirrors_the_2021_reference_table_of_the_seeds(client, study_2021):
    page = client.get(reverse("studies:report", args=[study_2021.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()

    rows = report_rows(page)
    assert rows[0] == ["1", "437.2413", "412.9373", "94%"]
    assert rows[1] == ["16", "4,778.4670", "4,668.1310", "98%"]
    assert rows[-1] == ["192", "8,188.1560", "8,000.0380", "98%"]
    assert "前バージョン比" in page


def test_the_wide_csv_has_clients_down_and_builds_across(client, study_2021):
    response = client.get(reverse("studies:report_csv", args=[study_2021.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))

    assert rows[0][:2] == ["scenario", "clients"]
    assert rows[0][2].endswith("13.4 median_tps") and rows[0][3].endswith("14.0 median_tps")
    assert rows[0][4].endswith("%")
    assert rows[1][1:] == ["1", "437.2413", "412.9373", "94"]


def test_a_member_with_the_permission_writes_the_conclusions(client, django_user_model, study_2021):
    member = django_user_model.objects.create_user("editor", password="x")
    member.user_permissions.add(Permission.objects.get(codename="change_study"))
    client.force_login(member)

    response = client.post(
        reverse("studies:conclusions", args=[study_2021.pk]), {"conclusions": "14.0 は参照系で2%低下。"}
    )
    page = client.get(reverse("studies:report", args=[study_2021.pk])).content.decode()

    assert response.status_code == 302
    assert Study.objects.get(pk=study_2021.pk).conclusions == "14.0 は参照系で2%低下。"
    assert "14.0 は参照系で2%低下。" in page and 'name="conclusions"' in page


def test_a_member_without_the_permission_cannot_and_sees_no_form(client, django_user_model, study_2021):
    client.force_login(django_user_model.objects.create_user("reader", password="x"))

    response = client.post(reverse("studies:conclusions", args=[study_2021.pk]), {"conclusions": "x"})
    page = client.get(reverse("studies:report", args=[study_2021.pk])).content.decode()

    assert response.status_code == 403
    assert Study.objects.get(pk=study_2021.pk).conclusions == study_2021.conclusions != "x"
    assert 'name="conclusions"' not in page


def test_an_anonymous_visitor_cannot_write_conclusions(client, study_2021):
    response = client.post(reverse("studies:conclusions", args=[study_2021.pk]), {"conclusions": "x"})

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Study.objects.get(pk=study_2021.pk).conclusions == study_2021.conclusions != "x"


def test_a_published_study_of_means_says_so_and_keeps_its_runs_by_transactions_apart(client, study_2021):
    study = Study.objects.get(title__contains="transactions per client")
    page = client.get(reverse("studies:report", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "TPS (mean)" in page and "TPS (median)" not in page
    assert [row[0] for row in report_rows(page)] == ["10-t10", "10-t100", "10-t500", "10-t1000"]
