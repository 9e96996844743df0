"""Comparisons follow the design's axes: a ratio compares two cells that differ in exactly one axis, names that axis
and both sides, and each axis is compared within each level of the others (seed 004: what checksums cost within a
version, what a version gains within a checksums level); 前バージョン比 only where the version is what differs."""

import csv
import io

import pytest
from django.urls import reverse
from django.utils import translation
from pptx import Presentation
from pypdf import PdfReader

from benchdash.studies.models import Variant
from benchdash.studies.results.comparisons import AxisLevel, LineLevels, comparison_columns
from benchdash.studies.results.queries import study_results_compared
from benchdash.studies.results.store import points_refresh
from benchdash.studies.variant_design import design_variants, parse_axis
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

pytestmark = pytest.mark.django_db
# (version, checksums) -> the median TPS of five runs: checksums cost 5% on 13.4 and 8% on 15.2
MEDIANS = {("13.4", "off"): 100.0, ("13.4", "on"): 95.0, ("15.2", "off"): 120.0, ("15.2", "on"): 110.4}
SPREAD = (0.99, 0.995, 1.0, 1.005, 1.01)


def varied_study(versions: list[str], axis_line: str, medians: dict[tuple[str, str], float]):
    """A study of these builds crossed with one vary-box axis, the first build's first value the baseline, with five
    succeeded runs per variant at 1 client around the given medians (no pgbench: the figures are the test's)."""
    builds = [BuildFactory(name=f"PostgreSQL {version}", version=version) for version in versions]
    scenario = ScenarioFactory(slug="pgecons-update", name="更新系")
    study = StudyFactory(title="axes", baseline=builds[0], scenarios=[scenario], status="done")
    study.builds.set(builds)
    axis = parse_axis(axis_line)
    for position, variant in enumerate(design_variants(builds, builds[0], [axis], {})):
        variant.study, variant.position = study, position
        variant.save()
        value = next(value for value in axis.values if variant.label.endswith(f"={value}"))
        for repetition, factor in enumerate(SPREAD, start=1):
            tps = medians[(variant.build.version, value)] * factor
            succeeded_trial(study, variant.build, scenario, 1, repetition, tps, variant=variant, point=False)
    points_refresh(study_id=study.pk)
    return study


@pytest.fixture
def checksums_study(db):
    return varied_study(["13.4", "15.2"], "checksums=off,on", MEDIANS)


@pytest.fixture
def transactions_study(db):
    return varied_study(["15.2"], "transactions=10,100", {("15.2", "10"): 100.0, ("15.2", "100"): 211.0})


def csv_rows(client, name: str, study) -> list[dict]:
    response = client.get(reverse(f"studies:{name}", args=[study.pk]))
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))


def page(client, name: str, study, language: str) -> str:
    return client.get(reverse(f"studies:{name}", args=[study.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()


def test_every_ratio_compares_two_cells_that_differ_in_exactly_one_axis(checksums_study):
    comparisons = study_results_compared(checksums_study)[1]
    variants = {variant.pk: variant for variant in Variant.objects.filter(study=checksums_study)}

    for comparison in comparisons:
        line, reference = variants[comparison.column.line_id], variants[comparison.column.reference_line_id]
        differing = {
            axis
            for axis, field in (("version", "build_id"), ("checksums", "data_checksums"))
            if getattr(line, field) != getattr(reference, field)
        }
        assert differing == {comparison.column.axis.axis}
    pairs = {(c.column.axis.axis, c.point.label, c.reference.label) for c in comparisons}
    assert pairs == {
        ("version", "PostgreSQL 15.2 checksums=off", "PostgreSQL 13.4 checksums=off"),
        ("version", "PostgreSQL 15.2 checksums=on", "PostgreSQL 13.4 checksums=on"),
        ("checksums", "PostgreSQL 13.4 checksums=on", "PostgreSQL 13.4 checksums=off"),
        ("checksums", "PostgreSQL 15.2 checksums=on", "PostgreSQL 15.2 checksums=off"),
    }


def test_each_axis_is_compared_within_each_level_of_the_other_with_its_own_ratio(checksums_study):
    comparisons = study_results_compared(checksums_study)[1]
    ratios = {(c.column.axis.axis, c.point.label): c.point.ratio for c in comparisons}

    assert ratios[("checksums", "PostgreSQL 13.4 checksums=on")] == pytest.approx(0.95)
    assert ratios[("checksums", "PostgreSQL 15.2 checksums=on")] == pytest.approx(0.92)
    assert ratios[("version", "PostgreSQL 15.2 checksums=on")] == pytest.approx(110.4 / 95)
    assert {c.point.verdict.value for c in comparisons} == {"slower", "faster"}


def test_each_ratio_names_its_axis_both_sides_and_the_other_axes_levels(checksums_study):
    columns = {c.column for c in study_results_compared(checksums_study)[1]}
    with translation.override("en"):
        titles = {(str(column.ratio_label), column.name, column.key_text) for column in columns}

    assert len(columns) == 4
    assert titles >= {
        ("data checksums on / off", "PostgreSQL 13.4", "checksums on / off, PostgreSQL 13.4"),
        (
            "ratio to the previous version",
            "PostgreSQL 15.2 / PostgreSQL 13.4, data checksums off",
            "PostgreSQL 15.2 / PostgreSQL 13.4, checksums=off",
        ),
    }


def test_the_study_page_heads_each_ratio_column_by_its_axis_in_both_languages(client, checksums_study):
    english, japanese = page(client, "detail", checksums_study, "en"), page(client, "detail", checksums_study, "ja")
    table = english.split('class="data comparison"')[1].split("</table>")[0]
    ja_table = japanese.split('class="data comparison"')[1].split("</table>")[0]

    assert table.count("ratio to the previous version") == 2 and table.count("data checksums on / off") == 2
    assert "PostgreSQL 15.2 / PostgreSQL 13.4, data checksums on" in table
    assert ja_table.count("前バージョン比") == 2 and ja_table.count("データチェックサム on / off") == 2
    assert "vs baseline" not in table


def test_a_transactions_study_of_one_build_never_says_previous_version(client, transactions_study):
    for name in ("detail", "report"):
        english, japanese = page(client, name, transactions_study, "en"), page(client, name, transactions_study, "ja")
        assert "ratio to the previous version" not in english and "前バージョン比" not in japanese
        assert "transactions per client (-t) 100 / 10" in english and "211%" in english
        assert "クライアントあたりのトランザクション数（-t） 100 / 10" in japanese
    [header, *_rows] = csv.reader(io.StringIO(csv_text(client, "report_csv", transactions_study)))
    assert header[-1] == "transactions 100 / 10 %"


def csv_text(client, name: str, study) -> str:
    response = client.get(reverse(f"studies:{name}", args=[study.pk]))
    return b"".join(response.streaming_content).decode("utf-8-sig")


def test_the_comparisons_csv_carries_the_axis_and_the_compared_with_cell(client, checksums_study):
    rows = {(row["axis"], row["variant"]): row for row in csv_rows(client, "comparisons_csv", checksums_study)}

    assert len(rows) == 4
    cost = rows[("checksums", "PostgreSQL 15.2 checksums=on")]
    assert (cost["level"], cost["reference_level"], cost["context"]) == ("on", "off", "PostgreSQL 15.2")
    assert cost["compared_with"] == "PostgreSQL 15.2 checksums=off" and float(cost["ratio"]) == pytest.approx(0.92)
    gain = rows[("version", "PostgreSQL 15.2 checksums=on")]
    assert (gain["level"], gain["reference_level"], gain["context"]) == (
        "PostgreSQL 15.2",
        "PostgreSQL 13.4",
        "checksums=on",
    )
    assert gain["compared_with"] == "PostgreSQL 13.4 checksums=on" and gain["verdict"] == "faster"


def test_the_summary_csv_gives_a_ratio_only_against_a_baseline_one_axis_away(client, checksums_study):
    rows = {row["variant"]: row for row in csv_rows(client, "summary_csv", checksums_study)}

    two_axes_away = rows["PostgreSQL 15.2 checksums=on"]
    assert two_axes_away["ratio_to_baseline"] == "" and two_axes_away["verdict"] == ""
    assert two_axes_away["ratio_axis"] == "" and two_axes_away["compared_with"] == ""
    version = rows["PostgreSQL 15.2 checksums=off"]
    assert (version["ratio_axis"], version["compared_with"]) == ("version", "PostgreSQL 13.4 checksums=off")
    assert float(version["ratio_to_baseline"]) == pytest.approx(1.2)
    assert rows["PostgreSQL 13.4 checksums=on"]["ratio_axis"] == "checksums"


def test_the_api_carries_the_axis_and_the_compared_with_cell(client, checksums_study):
    comparisons = client.get(f"/api/v1/studies/{checksums_study.pk}/comparisons").json()["items"]
    points = client.get(f"/api/v1/studies/{checksums_study.pk}/points").json()["items"]

    cost = next(c for c in comparisons if c["axis"] == "checksums" and c["line"] == "PostgreSQL 15.2 checksums=on")
    assert (
        cost["context"] == {"version": "PostgreSQL 15.2"} and cost["compared_with"] == "PostgreSQL 15.2 checksums=off"
    )
    assert (cost["level"], cost["reference_level"]) == ("on", "off") and cost["ratio"] == pytest.approx(0.92)
    assert cost["compared_with_median"] == pytest.approx(120.0) and cost["verdict"] == "slower"
    assert sorted(point["ratio_axis"] or "" for point in points) == ["", "", "checksums", "version"]
    assert all(point["ratio"] is None for point in points if point["ratio_axis"] is None)
    version = next(point for point in points if point["ratio_axis"] == "version")
    assert version["compared_with"] == "PostgreSQL 13.4 checksums=off" and version["ratio"] == pytest.approx(1.2)


def level(axis: str, value: str) -> AxisLevel:
    return AxisLevel(axis, axis, value)


def test_a_cell_without_its_one_axis_neighbour_is_not_compared_on_that_axis():
    """Versions x CPUs with 15 at 2 CPUs missing: 15 at 1 CPU is compared on the version only, and nothing is compared
    with a cell two axes away."""
    lines = [
        LineLevels(1, "13 cpus=1", "13.4", (level("version", "13"), level("cpus", "1"))),
        LineLevels(2, "13 cpus=2", "13.4", (level("version", "13"), level("cpus", "2"))),
        LineLevels(3, "15 cpus=1", "15.2", (level("version", "15"), level("cpus", "1"))),
    ]

    columns = comparison_columns(lines, baseline_id=1)

    assert [(column.axis.axis, column.line_id, column.reference_line_id) for column in columns] == [
        ("version", 3, 1),
        ("cpus", 2, 1),
    ]
    assert comparison_columns(lines, baseline_id=None) == []


def test_the_pdf_and_the_deck_name_each_ratio_by_its_axis(client, checksums_study):
    def report_file(extension: str) -> bytes:
        arguments = {"pk": checksums_study.pk, "language": "en", "extension": extension}
        return client.get(reverse("reports:study_file", kwargs=arguments)).content

    pages = PdfReader(io.BytesIO(report_file("pdf"))).pages
    text = "".join("".join(page.extract_text().split()) for page in pages)  # narrow columns break words anywhere
    deck = Presentation(io.BytesIO(report_file("pptx")))
    [table] = [shape.table for slide in deck.slides for shape in slide.shapes if shape.has_table]

    assert "datachecksumson/off(PostgreSQL15.2)" in text
    assert "ratiotothepreviousversion(PostgreSQL15.2/PostgreSQL13.4,datachecksumson)" in text
    headers = [table.cell(0, column).text for column in range(len(table.columns))]
    assert headers[-4:] == [  # after the clients and each line's figure
        "ratio to the previous version\nPostgreSQL 15.2 / PostgreSQL 13.4, data checksums off",
        "ratio to the previous version\nPostgreSQL 15.2 / PostgreSQL 13.4, data checksums on",
        "data checksums on / off\nPostgreSQL 13.4",
        "data checksums on / off\nPostgreSQL 15.2",
    ]
    assert table.cell(1, len(headers) - 1).text.startswith("92% (")


def test_the_version_is_the_previous_version_only_next_to_the_reference():
    lines = [
        LineLevels(1, "13", "13.4", (level("version", "13"),)),
        LineLevels(2, "14", "14.0", (level("version", "14"),)),
        LineLevels(3, "15", "15.2", (level("version", "15"),)),
    ]

    with translation.override("ja"):
        labels = [(column.line_id, str(column.ratio_label)) for column in comparison_columns(lines, baseline_id=1)]

    assert labels == [(2, "前バージョン比"), (3, "版の比")]


def test_a_setting_one_variant_leaves_to_the_study_is_its_default_level(db):
    build = BuildFactory(name="PostgreSQL 16.4", version="16.4")
    scenario = ScenarioFactory(slug="pgecons-reference")
    study = StudyFactory(baseline=build, scenarios=[scenario], builds=[build])
    Variant.objects.create(study=study, build=build, label="64MB", pg_settings={"work_mem": "64MB"}, position=1)
    for variant, tps in zip(Variant.objects.filter(study=study), (100.0, 104.0), strict=True):
        succeeded_trial(study, build, scenario, 1, 1, tps, variant=variant, point=False)
    points_refresh(study_id=study.pk)

    [comparison] = study_results_compared(study)[1]

    column = comparison.column
    assert (column.axis.axis, column.axis.level, column.reference_level) == ("setting:work_mem", "64MB", "default")
    assert column.key_text == "setting:work_mem 64MB / default" and comparison.point.ratio == pytest.approx(1.04)
    with translation.override("ja"):
        assert str(column.ratio_label) == "work_mem 64MB / 既定"
