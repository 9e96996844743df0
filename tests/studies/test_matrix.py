"""A version matrix: one study of many majors draws its own index line, on its page and, once official, on the
trends page; the form and queue_study take every registered build at once."""

import json
import re

import pytest
from django.urls import reverse

from benchdash.studies.results.matrix import matrix_line
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, measured_results, succeeded_runs

# Medians per major at 1 and 16 clients: 11 = 10 x 1.10, 12 = 11 x 0.95 (1 client) and 0.99 (16 clients).
MEDIANS = {
    "10.23": (1000.0, 8000.0),
    "11.22": (1100.0, 8800.0),
    "12.22": (1045.0, 8712.0),
    "13.23": (1045.0, 9583.2),
}


def _points(medians=MEDIANS):
    scenario = ScenarioFactory(slug="ref")
    builds = {version: BuildFactory(version=version) for version in medians}
    figures = {
        (builds[version], scenario, clients): [tps]
        for version, figures in medians.items()
        for clients, tps in zip((1, 16), figures, strict=True)
    }
    return measured_results(figures, builds[next(iter(medians))])


@pytest.mark.django_db
def test_each_major_is_the_one_before_times_the_geometric_mean_of_its_ratios():
    line = matrix_line(_points())
    assert [(point.version, point.build_version) for point in line] == [
        ("10", "10.23"),
        ("11", "11.22"),
        ("12", "12.22"),
        ("13", "13.23"),
    ]
    assert [point.index for point in line] == pytest.approx(
        [100.0, 110.0, 110.0 * (0.95 * 0.99) ** 0.5, 110.0 * (0.95 * 0.99) ** 0.5 * (1.0 * 1.1) ** 0.5]
    )
    assert [point.levels for point in line] == [0, 2, 2, 2]


@pytest.mark.django_db
def test_two_majors_are_a_comparison_not_a_matrix():
    assert matrix_line(_points({"10.23": (1.0, 2.0), "11.22": (1.0, 2.0)})) == []


@pytest.mark.django_db
def test_the_newest_build_of_a_major_stands_for_it():
    line = matrix_line(_points(dict(MEDIANS, **{"13.4": (5000.0, 5000.0)})))
    assert [point.build_version for point in line][-1] == "13.23"


@pytest.fixture
def matrix_study(db):
    scenario = ScenarioFactory(slug="ref", name="Reference")
    builds = {version: BuildFactory(name=f"PostgreSQL {version}", version=version) for version in MEDIANS}
    study = StudyFactory(
        title="matrix 10-13",
        builds=list(builds.values()),
        baseline=builds["10.23"],
        scenarios=[scenario],
        official=False,
    )
    figures = {
        (builds[version], clients): [tps]
        for version, medians in MEDIANS.items()
        for clients, tps in zip((1, 16), medians, strict=True)
    }
    succeeded_runs(study, scenario, figures)
    return study


def test_the_study_page_shows_its_own_index_line(client, matrix_study):
    page = client.get(reverse("studies:detail", args=[matrix_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    table = page.split('<table class="data matrix">')[1].split("</table>")[0]
    rows = [re.sub(r"<[^>]+>", "|", row) for row in re.findall(r"<tr><td>(.*?)</tr>", table, re.S)]
    assert [row.strip("|").split("|")[0] for row in rows] == ["10", "11", "12", "13"]
    assert "110.0" in rows[1] and "× 1.100" in rows[1]


def test_an_official_matrix_is_one_dashed_line_beside_the_index(client, matrix_study):
    page = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "version matrix" not in page  # not official: not in the trends
    matrix_study.status = "done"
    matrix_study.save()
    assert matrix_study.mark_official(True)
    page = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    figure_id = re.search(r'data-figure="(index-\d+)"', page).group(1)
    figure = json.loads(re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', page).group(1))
    [matrix] = [trace for trace in figure["data"] if trace["name"].startswith("version matrix")]
    assert matrix["x"] == ["10", "11", "12", "13"] and matrix["line"]["dash"] == "dash"
    assert matrix["y"][:2] == [100.0, 110.0]  # the index starts at 10 too: drawn from its value there
    assert "a version matrix of 4 majors: one dashed line, every link from this one study and host" in page


def test_the_form_takes_every_registered_build_for_a_matrix(client, django_user_model):
    from django.contrib.auth.models import Permission

    from benchdash.inventory.models import Build
    from benchdash.studies.models import Study
    from tests.factories import HostFactory

    user = django_user_model.objects.create_user("m", password="pw-m-1")
    user.user_permissions.add(Permission.objects.get(codename="add_study"))
    client.force_login(user)
    host = HostFactory(name="local", address="")
    debian = "/usr/lib/postgresql/15/bin"
    builds = [BuildFactory(name=f"b{n}", version=f"15.{n}", bin_dir=debian) for n in (18, 19, 20)]
    BuildFactory(name="published 9.2", version="9.2.4", kind=Build.Kind.PUBLISHED)
    scenario = ScenarioFactory(slug="s", builtin="select-only", reset="once")
    data = {
        "title": "matrix",
        "year": "2026",
        "db_host": host.pk,
        "baseline": builds[0].pk,
        "all_builds": "on",
        "builds": [builds[0].pk],
        "scenarios": [scenario.pk],
        "client_levels": "1",
        "repetitions": "1",
        "duration_s": "2",
        "scale": "1",
        "pg_settings": "max_connections = 20",
        "seed": "1",
        "queue": "1",
    }
    response = client.post(reverse("studies:new"), data)
    assert response.status_code == 302, response.context["form"].errors
    study = Study.objects.get(title="matrix")
    assert sorted(study.builds.values_list("name", flat=True)) == ["b18", "b19", "b20"]
    assert study.trials.count() == 3
