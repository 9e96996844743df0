"""The settings (SHOW ALL) that differ between a study's builds or variants, and the study page that highlights them."""

import re

import pytest
from django.urls import reverse

from benchdash.studies.models import Trial, Variant
from benchdash.studies.results.settings_diff import SettingDifference, settings_differences
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

# Defaults as PostgreSQL 14 and 16 report them: hash_mem_multiplier went from 1 to 2 in 15,
# vacuum_buffer_usage_limit came in 16; the engine's own port and paths differ per cluster.
PG14 = {"hash_mem_multiplier": "1", "shared_buffers": "128MB", "port": "40001", "data_directory": "/w/14/data"}
PG16 = {
    "hash_mem_multiplier": "2",
    "shared_buffers": "128MB",
    "vacuum_buffer_usage_limit": "256kB",
    "port": "40002",
    "data_directory": "/w/16/data",
}


def test_it_lists_a_changed_default_and_a_new_setting_and_leaves_the_engines_own_lines_out():
    assert settings_differences([PG14, PG16]) == [
        SettingDifference("hash_mem_multiplier", ("1", "2")),
        SettingDifference("vacuum_buffer_usage_limit", (None, "256kB")),
    ]


def test_the_same_settings_in_every_build_make_no_difference():
    assert settings_differences([PG14, dict(PG14, port="1")]) == []
    assert settings_differences([]) == []


def test_a_cell_is_highlighted_where_it_differs_from_the_baseline():
    difference = SettingDifference("work_mem", ("4MB", "4MB", "8MB"))
    assert difference.cells == [("4MB", False), ("4MB", False), ("8MB", True)]
    assert difference.in_every_build


@pytest.mark.django_db
def test_the_study_page_highlights_what_differs_between_the_builds_trials(client):
    old, new = BuildFactory(name="pg14", version="14.13"), BuildFactory(name="pg16", version="16.4")
    scenario = ScenarioFactory()
    study = StudyFactory(builds=[old, new], baseline=old, scenarios=[scenario])
    for build, settings in ((new, PG16), (old, PG14)):
        TrialFactory(
            study=study,
            build=build,
            scenario=scenario,
            status=Trial.Status.SUCCEEDED,
            tps=100.0,
            server_settings=settings,
        )
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = page.split('id="settings-diff"')[1].split("</section>")[0]
    rows = re.findall(r"<tr><td><code>(.*?)</code></td>(.*?)</tr>", section, re.S)
    assert [name for name, _cells in rows] == ["hash_mem_multiplier", "vacuum_buffer_usage_limit"]
    assert re.findall(r"<td( class=\"differs\")?>(.*?)</td>", rows[0][1]) == [("", "1"), (' class="differs"', "2")]
    assert "(not in this major)" in rows[1][1]
    assert "1 setting exists in some of the majors only" in section
    assert "port" not in [name for name, _cells in rows]


@pytest.mark.django_db
def test_before_two_builds_ran_the_page_says_when_the_settings_come(client):
    study = StudyFactory(builds=[BuildFactory(), BuildFactory()])
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "once two builds have run" in page


@pytest.mark.django_db
def test_a_variant_study_of_one_build_shows_what_differs_between_its_variants(client):
    build, scenario = BuildFactory(name="pg16", version="16.4"), ScenarioFactory()
    study = StudyFactory(builds=[build], baseline=build, scenarios=[scenario])
    small = Variant.objects.get(study=study)
    Variant.objects.filter(pk=small.pk).update(
        label="pg16 shared_buffers=128MB", pg_settings={"shared_buffers": "128MB"}
    )
    large = Variant.objects.create(
        study=study, build=build, label="pg16 shared_buffers=1GB", pg_settings={"shared_buffers": "1GB"}, position=1
    )
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Settings that differ between the variants" in page and "once two variants have run" in page
    for variant, shared_buffers in ((large, "1GB"), (small, "128MB")):
        TrialFactory(
            study=study,
            build=build,
            variant=variant,
            scenario=scenario,
            status=Trial.Status.SUCCEEDED,
            tps=100.0,
            server_settings=dict(PG16, shared_buffers=shared_buffers),
        )
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = page.split('id="settings-diff"')[1].split("</section>")[0]
    heads = re.findall(r"<th>(pg16 shared_buffers=\S+?)[ <]", section)
    assert heads == ["pg16 shared_buffers=128MB", "pg16 shared_buffers=1GB"]  # the baseline variant first
    rows = re.findall(r"<tr><td><code>(.*?)</code></td>(.*?)</tr>", section, re.S)
    assert [name for name, _cells in rows] == ["shared_buffers"]
    assert re.findall(r"<td( class=\"differs\")?>(.*?)</td>", rows[0][1]) == [
        ("", "128MB"),
        (' class="differs"', "1GB"),
    ]
