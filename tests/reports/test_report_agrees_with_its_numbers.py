"""The report never contradicts its numbers (issue 41, point 7): a ratio the runs could not call says why, a heading
stays on the page of its chart, a column has one number format, the conclusions are rendered Markdown, and the deck
holds the comparison table."""

import io
import re

import pytest
from django.urls import reverse
from pptx import Presentation
from pypdf import PdfReader

from benchdash.studies.models import Study
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_runs

pytestmark = pytest.mark.django_db

# The case: 3 runs a side that spread so much that no verdict is possible at the 2% threshold.
NOISY = {"old": [100.0, 140.0, 70.0], "new": [150.0, 90.0, 200.0]}


def _noisy_study(scenarios: int = 1, **fields) -> Study:
    old, new = BuildFactory(version="13.4", name="PG 13.4"), BuildFactory(version="14.0", name="PG 14.0")
    made = [ScenarioFactory(slug=f"noisy-{number}", name=f"Noisy workload {number}") for number in range(scenarios)]
    study = StudyFactory(
        title="noisy", builds=[old, new], baseline=old, scenarios=made, status=Study.Status.DONE, **fields
    )
    for scenario in made:
        succeeded_runs(study, scenario, {(old, 1): NOISY["old"], (new, 1): NOISY["new"]})
    return study


def _file(client, study: Study, extension: str) -> bytes:
    url = reverse("reports:study_file", kwargs={"pk": study.pk, "language": "en", "extension": extension})
    response = client.get(url)
    assert response.status_code == 200
    return response.content


def _pages(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def test_a_ratio_the_runs_could_not_call_says_their_spread_and_the_smallest_difference_they_call(client):
    study = _noisy_study()

    text = " ".join(" ".join(_pages(_file(client, study, "pdf"))).split())

    assert "nothing to explain" not in text
    # can't tell: the log-TPS spread of both sides pooled (4 df, no history: t on 2 df, as 3 rounds alone would)
    assert "1 client, PG 14.0: 150% (" in text and "), can't tell. " in text
    assert "the runs spread 39.0%; 3 a side cannot call less than 396.2%." in text


def test_only_a_report_whose_every_ratio_was_called_says_nothing_is_left_to_explain(client):
    old, new = BuildFactory(version="16.4", name="PG 16.4"), BuildFactory(version="17.0", name="PG 17.0")
    scenario = ScenarioFactory(slug="level", name="Level")
    study = StudyFactory(builds=[old, new], baseline=old, scenarios=[scenario], status=Study.Status.DONE)
    runs = [1000.0, 1001.0, 999.0, 1000.5, 999.5]
    succeeded_runs(study, scenario, {(old, 1): runs, (new, 1): runs})

    text = " ".join(" ".join(_pages(_file(client, study, "pdf"))).split())

    assert "No difference lies beyond the threshold: nothing to explain." in text
    assert "cannot call" not in text


def test_every_scenario_heading_sits_on_the_page_of_its_chart(client):
    study = _noisy_study(scenarios=7)

    pages = _pages(_file(client, study, "pdf"))

    assert len(pages) >= 4
    for number in range(7):
        name = f"Noisy workload {number}"
        heading = next(page for page, text in enumerate(pages) if re.search(rf"^{name}$", text, re.MULTILINE))
        chart = next(page for page, text in enumerate(pages) if f"{name}: TPS (median) by clients" in text)
        assert heading == chart, f"{name}: heading on page {heading + 1}, its chart on page {chart + 1}"


def test_each_column_of_figures_has_one_format_on_the_page_and_in_the_pdf(client):
    old, new = BuildFactory(version="13.4", name="PG 13.4"), BuildFactory(version="14.0", name="PG 14.0")
    scenario = ScenarioFactory(slug="formats", name="Formats")
    study = StudyFactory(builds=[old, new], baseline=old, scenarios=[scenario], status=Study.Status.DONE)
    figures = {(old, 1): [437.2413], (old, 8): [34000.0], (old, 32): [8404.6], (new, 1): [412.9373]}
    succeeded_runs(study, scenario, {**figures, (new, 8): [34100.0], (new, 32): [8193.8]})

    text = "\n".join(_pages(_file(client, study, "pdf")))
    page = client.get(reverse("studies:report", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    for figure in ("437.2413", "34,000.0000", "8,404.6000", "412.9373", "34,100.0000", "8,193.8000"):
        assert figure in text and f">{figure}<" in page
    assert "34,000\n" not in text and ">34000<" not in page and ">34,000<" not in page


def test_the_conclusions_are_rendered_markdown_in_the_pdf_and_on_the_page(client):
    written = "Version **14** is `2%` slower at *1 client*.\n\n- <script>alert(1)</script>\n- [x](javascript:alert(1))"
    study = _noisy_study(conclusions=written)

    text = "\n".join(_pages(_file(client, study, "pdf")))
    page = client.get(reverse("studies:report", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "Version 14 is 2% slower at 1 client." in text
    assert "`" not in text and "**" not in text
    assert "Version <strong>14</strong> is <code>2%</code> slower at <em>1 client</em>." in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="javascript:' not in page


def test_the_deck_has_a_comparison_table_slide_per_scenario(client):
    study = _noisy_study()

    deck = Presentation(io.BytesIO(_file(client, study, "pptx")))

    tables = [shape.table for slide in deck.slides for shape in slide.shapes if shape.has_table]
    assert len(tables) == 1
    rows = [[cell.text for cell in row.cells] for row in tables[0].rows]
    assert rows[0] == ["clients", "PG 13.4", "PG 14.0", "ratio to the previous version\nPG 14.0 / PG 13.4"]
    assert rows[1][:3] == ["1", "100", "150"] and rows[1][3].startswith("150% (") and "can't tell" in rows[1][3]
