"""A variant study on its page and in its CSVs, in the seeds' shapes: a line per variant, the ratio table against the
baseline variant, the scalability chart per CPU count, and the evidence per variant."""

import csv
import io

import pytest
from django.urls import reverse

from benchdash.studies.models import Variant
from benchdash.studies.results.queries import study_results
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory
from tests.pages.test_evidence_pages import figure, finished_trial
from tests.pages.test_version_pages import rows

pytestmark = pytest.mark.django_db
# (cpus, clients) -> TPS of five runs (enough for the rank interval): 2 CPUs twice as fast at 2 clients, the same at 1
SAME, TWICE = [99, 100, 101, 102, 103], [290, 295, 300, 305, 310]
RUNS = {(1, 1): SAME, (1, 2): [149, 150, 151, 152, 153], (2, 1): SAME, (2, 2): TWICE}


@pytest.fixture
def cpu_study(db):
    build = BuildFactory(name="pg15", version="15.4")
    scenario = ScenarioFactory(slug="pgecons-update", name="更新系")
    study = StudyFactory(title="cores", builds=[build], baseline=build, scenarios=[scenario], status="done")
    Variant.objects.filter(study=study).update(label="pg15 cpus=1", cpus=1)
    Variant.objects.create(study=study, build=build, label="pg15 cpus=2", cpus=2, position=1)
    for (cpus, clients), runs in RUNS.items():
        variant = Variant.objects.get(study=study, cpus=cpus)
        for repetition, tps in enumerate(runs, start=1):
            finished_trial(study, build, scenario, clients, repetition, tps, variant=variant)
    return study


def csv_rows(client, name: str, study) -> list[dict]:
    response = client.get(reverse(f"studies:{name}", args=[study.pk]))
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))


def test_the_results_have_a_line_per_variant_compared_with_the_baseline_variant(cpu_study):
    points = {(point.label, point.clients): point for point in study_results(cpu_study)}
    assert set(points) == {("pg15 cpus=1", 1), ("pg15 cpus=1", 2), ("pg15 cpus=2", 1), ("pg15 cpus=2", 2)}
    assert points[("pg15 cpus=1", 2)].ratio is None  # the baseline
    assert points[("pg15 cpus=2", 2)].ratio == pytest.approx(300 / 151)
    assert points[("pg15 cpus=2", 2)].verdict.value == "faster"


def test_the_tps_chart_draws_a_line_per_variant(client, cpu_study):
    page = client.get(reverse("studies:detail", args=[cpu_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chart = figure(page, f"chart-{cpu_study.scenarios.get().pk}")
    assert [trace["name"] for trace in chart["data"]] == ["pg15 cpus=1", "pg15 cpus=2"]
    assert chart["data"][1]["y"] == [101, 300]


def test_the_summary_csv_names_each_variant_and_its_ratio_to_the_baseline_variant(client, cpu_study):
    rows = csv_rows(client, "summary_csv", cpu_study)
    cells = {(row["variant"], row["clients"]): row for row in rows}
    assert cells[("pg15 cpus=1", "2")]["baseline"] == "true" and cells[("pg15 cpus=1", "2")]["ratio_to_baseline"] == ""
    faster = cells[("pg15 cpus=2", "2")]
    assert (faster["build"], faster["baseline"], faster["verdict"]) == ("pg15", "false", "faster")
    assert float(faster["ratio_to_baseline"]) == pytest.approx(300 / 151, abs=1e-4)


def test_the_scalability_chart_draws_a_line_per_cpu_count_with_its_peak(client, cpu_study):
    page = client.get(reverse("studies:detail", args=[cpu_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chart = figure(page, "scalability-1")
    assert [trace["name"] for trace in chart["data"]] == ["1 CPU", "2 CPUs"]
    section = page.split('id="scalability"')[1].split("</section>")[0]
    assert '<td>2 CPUs</td><td class="num">300.0</td><td class="num">2</td><td class="num">5</td>' in section
    ja = client.get(reverse("studies:detail", args=[cpu_study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "CPU 数ごとのスケーラビリティ" in ja


def test_the_evidence_is_compared_across_variants(client, cpu_study):
    rows = csv_rows(client, "evidence_csv", cpu_study)
    assert {(row["build"], row["clients"], row["baseline"]) for row in rows} == {
        ("pg15 cpus=1", "1", "true"),
        ("pg15 cpus=1", "2", "true"),
        ("pg15 cpus=2", "1", "false"),
        ("pg15 cpus=2", "2", "false"),
    }
    assert all(row["cpu_steal"] != "" for row in rows)  # sar's %steal, per variant as per build


def test_a_study_of_builds_keeps_its_builds_as_lines(client, db):
    old, new = BuildFactory(name="13.4", version="13.4"), BuildFactory(name="14.0", version="14.0")
    scenario = ScenarioFactory()
    study = StudyFactory(builds=[old, new], baseline=old, scenarios=[scenario], status="done")
    for build, tps in ((old, 100.0), (new, 90.0)):
        finished_trial(study, build, scenario, 1, tps=tps)
    points = {point.label: point for point in study_results(study)}
    assert points["14.0"].build_id == new.pk and points["14.0"].ratio == pytest.approx(0.9)
    assert [row["variant"] for row in csv_rows(client, "summary_csv", study)] == ["13.4", "14.0"]


def test_the_scalability_csv_has_each_cpu_count_by_clients_with_its_peak(client, cpu_study):
    rows = csv_rows(client, "scalability_csv", cpu_study)
    assert [(row["cpus"], row["clients"], row["median_tps"], row["peak"]) for row in rows] == [
        ("1", "1", "101.0", "false"),
        ("1", "2", "151.0", "true"),
        ("2", "1", "101.0", "false"),
        ("2", "2", "300.0", "true"),
    ]
    assert {(row["build"], row["variant"]) for row in rows} == {("pg15", "pg15 cpus=1"), ("pg15", "pg15 cpus=2")}


def test_the_version_page_has_a_row_per_variant_of_one_build(client, cpu_study):
    page = client.get("/versions/15.4/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert [row.split(" measured here not official ")[1] for row in rows(page)] == [
        "pg15 cpus=1 median 101.00 151.00",
        "pg15 cpus=2 median 101.00 300.00",
    ]
