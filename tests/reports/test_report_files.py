"""The report files of issue 23: a study's (and a year's) PDF, 16:9 slides and CSV bundle, opened as a reader would
(pypdf for the PDF's text, pdftoppm for its pages as images, python-pptx for the deck, zipfile for the bundle)."""

import csv
import io
import json
import shutil
import subprocess
import zipfile

import pytest
from django.core.management import call_command
from django.urls import reverse
from pptx import Presentation
from pypdf import PdfReader

from benchdash.studies.models import Study
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def history():
    call_command("load_presets", stdout=io.StringIO())


def _study_2021() -> Study:
    return Study.objects.get(year=2021, kind=Study.Kind.PUBLISHED)


def _file(client, name: str, **kwargs) -> bytes:
    response = client.get(reverse(name, kwargs=kwargs))
    assert response.status_code == 200
    return response.content


def _pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_the_2021_pdf_holds_the_seeds_shape_with_its_stated_conclusions(client, history):
    study = _study_2021()

    text = _pdf_text(_file(client, "reports:study_file", pk=study.pk, language="en", extension="pdf"))

    assert "2021 PGECons 2021 定点観測 参照系: PostgreSQL 13.4 vs 14.0" in text
    for heading in ("Environment", "Procedure", "ratio to the previous version", "Evidence of each difference"):
        assert heading in text
    assert "RHEL 7.9" in text  # the environment as the source states it
    assert "TPS (median) by clients" in text  # the chart's title: scenario, unit
    assert "437.2413\n412.9373\n94%" in text  # 1 client: 13.4, 14.0 and 前バージョン比, as the seed's table
    assert "8,404.6370\n8,193.7610\n97%" in text  # one format per column: the seed's 8404.637 under 437.2413
    assert "2%程度性能低下" in text and "64接続でTPSの向上は頭打ち" in text  # the conclusions, word for word
    assert "benchdash commit:" in text
    assert f"/studies/new/?from={study.pk}" in text  # run this design again


def test_the_pdf_is_japanese_in_japanese_and_its_pages_render(client, history, tmp_path):
    study = _study_2021()
    data = _file(client, "reports:study_file", pk=study.pk, language="ja", extension="pdf")

    text = _pdf_text(data)
    assert "前バージョン比" in text and "メモと考察" in text
    assert "Notes and conclusions" not in text
    if shutil.which("pdftoppm") is None:
        pytest.fail("pdftoppm is needed: apt-get install poppler-utils (deploy/lib.sh installs it)")
    (tmp_path / "report.pdf").write_bytes(data)
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(tmp_path / "report.pdf"), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page*.png"))
    assert len(pages) == len(PdfReader(io.BytesIO(data)).pages) >= 1
    assert all(page.stat().st_size > 2000 for page in pages)  # drawn, not blank


def test_the_deck_is_16_9_with_one_titled_chart_per_slide(client, history):
    study = _study_2021()

    deck = Presentation(io.BytesIO(_file(client, "reports:study_file", pk=study.pk, language="en", extension="pptx")))

    assert deck.slide_width / deck.slide_height == pytest.approx(16 / 9, abs=1e-3)
    chart_slides = [slide for slide in deck.slides if any(shape.has_chart for shape in slide.shapes)]
    assert len(chart_slides) == 1  # one scenario
    slide = chart_slides[0]
    chart = next(shape.chart for shape in slide.shapes if shape.has_chart)
    assert slide.shapes.title.text == "PGECons 参照系 (10,000-row range count): TPS (median) by clients"
    assert chart.has_title and "2021 PGECons 2021 定点観測" in chart.chart_title.text_frame.text
    assert chart.has_legend
    assert [series.name for series in chart.plots[0].series] == ["PostgreSQL 13.4", "PostgreSQL 14.0"]
    assert list(chart.plots[0].series[1].values)[0] == pytest.approx(412.9373)
    links = [
        run.hyperlink.address
        for shape in slide.shapes
        if shape.has_text_frame
        for paragraph in shape.text_frame.paragraphs
        for run in paragraph.runs
        if run.hyperlink.address
    ]
    assert links == [f"http://testserver/studies/new/?from={study.pk}"]


def test_the_csv_bundle_holds_the_study_files_and_a_manifest(client, history):
    study = _study_2021()

    bundle = zipfile.ZipFile(
        io.BytesIO(_file(client, "reports:study_file", pk=study.pk, language="en", extension="zip"))
    )

    prefix = f"study-{study.pk}/benchdash-study-{study.pk}"
    assert sorted(bundle.namelist()) == sorted(
        ["manifest.json"]
        + [f"{prefix}-{name}.csv" for name in ("report", "summary", "comparisons", "trials", "evidence")]
    )
    rows = list(csv.reader(io.StringIO(bundle.read(f"{prefix}-report.csv").decode("utf-8-sig"))))
    assert rows[1][:4] == ["pgecons-reference", "1", "437.2413", "412.9373"]
    [manifest] = json.loads(bundle.read("manifest.json"))
    assert manifest["study"].startswith(f"#{study.pk} 2021 PGECons 2021")
    assert manifest["rerun_url"].endswith(f"/studies/new/?from={study.pk}") and manifest["commit"]


def test_a_year_report_holds_every_official_study_of_that_year(client, history):
    text = _pdf_text(_file(client, "reports:year_file", year=2014, language="en", extension="pdf"))

    assert "benchdash report 2014" in text
    assert "PGECons 2014 更新系: peak TPS" in text and "relative at 384 sessions" in text
    assert "34,000" in text and "34,000.0" not in text and "1.7倍" in text
    assert (
        client.get(
            reverse("reports:year_file", kwargs={"year": 1999, "language": "en", "extension": "pdf"})
        ).status_code
        == 404
    )


def test_a_measured_difference_comes_with_its_interval_verdict_and_evidence_line(client):
    older, newer = BuildFactory(version="16.4", name="PG 16.4"), BuildFactory(version="17.0", name="PG 17.0")
    scenario = ScenarioFactory(slug="reference", name="Reference")
    study = StudyFactory(
        title="measured", baseline=older, builds=[older, newer], scenarios=[scenario], status=Study.Status.DONE
    )
    succeeded_runs(study, scenario, {(older, 8): [1000, 1010, 990, 1005, 995], (newer, 8): [900, 905, 895, 910, 890]})

    text = _pdf_text(_file(client, "reports:study_file", pk=study.pk, language="en", extension="pdf"))

    assert "8 clients, PG 17.0: 90% (" in text and "), slower. no evidence was collected at this level." in text
