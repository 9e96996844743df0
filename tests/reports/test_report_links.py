"""Where the report is reached from, what its page prints, and the "run this design again" form (issue 23)."""

import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def history():
    call_command("load_presets", stdout=io.StringIO())


def test_a_study_page_links_its_report_page_and_files(client, history):
    study = Study.objects.get(year=2021)

    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()

    assert reverse("studies:report", args=[study.pk]) in page
    for language in ("ja", "en"):
        for extension in ("pdf", "pptx", "zip"):
            url = reverse("reports:study_file", kwargs={"pk": study.pk, "language": language, "extension": extension})
            assert f'href="{url}"' in page


def test_the_study_list_offers_each_official_year_in_one_click(client, history):
    page = client.get(reverse("studies:list")).content.decode()

    for year in (2008, 2014, 2018, 2021):
        assert reverse("reports:year_file", kwargs={"year": year, "language": "ja", "extension": "pdf"}) in page


def test_the_report_page_writes_a_published_figure_as_published_under_its_statistic(client, history):
    peak, relative = (Study.objects.get(year=2014, statistic=statistic) for statistic in ("peak", "relative"))

    peak_page = client.get(reverse("studies:report", args=[peak.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    relative_page = client.get(reverse("studies:report", args=[relative.pk]), HTTP_ACCEPT_LANGUAGE="en")

    assert ">34,000<" in peak_page and "34,000.0000" not in peak_page and "TPS (peak)" in peak_page
    relative_text = relative_page.content.decode()
    assert ">170<" in relative_text and "170.0000" not in relative_text
    assert "relative (baseline = 100)</th>" in relative_text and "TPS (relative" not in relative_text
    assert "1.7倍の性能を発揮する" in relative_text  # the seed's conclusion sits with its study


def test_a_member_s_conclusions_are_kept_when_the_history_is_loaded_again(history):
    study = Study.objects.get(year=2021)
    study.conclusions = "our own reading"
    study.save(update_fields=["conclusions"])

    call_command("load_presets", stdout=io.StringIO())

    study.refresh_from_db()
    assert study.conclusions == "our own reading"


@pytest.fixture
def queuer(client, member_roles):
    user = User.objects.create_user("queuer", password="pw-queuer-1")
    user.groups.add(Group.objects.get(name="Members: cancel and retry"))
    client.force_login(user)
    return user


def test_run_this_design_again_opens_the_form_filled_with_it(client, history, queuer):
    study = Study.objects.get(year=2021)

    response = client.get(reverse("studies:new") + f"?from={study.pk}")

    form = response.context["form"]
    assert form["client_levels"].value() == ",".join(map(str, study.client_levels))
    assert form["title"].value() == study.title
    assert set(form["scenarios"].value()) == set(study.scenarios.values_list("pk", flat=True))
    assert 'value="1,16,32,64,96,128,160,192"' in response.content.decode()


def test_run_again_of_an_unknown_study_says_so_and_opens_an_empty_form(client, queuer):
    response = client.get(reverse("studies:new") + "?from=x1", HTTP_ACCEPT_LANGUAGE="en")

    assert "There is no study x1 to run again." in response.content.decode()
    assert response.context["form"]["client_levels"].value() is None


def test_each_language_s_buttons_are_labelled_in_that_language(client, history):
    study = Study.objects.get(year=2021)

    page = client.get(reverse("studies:report", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()

    japanese, english = page.split('report-files-set" lang="ja"', 1)[1].split('report-files-set" lang="en"', 1)
    assert "報告書 (PDF)" in japanese and "Report (PDF)" not in japanese
    assert "Report (PDF)" in english and "報告書 (PDF)" not in english
