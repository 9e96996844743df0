"""The seeds' findings about comparisons other than versions: quoted word for word, numbers only where printed, and
shown on the pages of the studies that make the same comparison."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from benchdash.studies.models import Study, Variant
from benchdash.studies.seed_data import FINDINGS
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory
from tests.pages.test_evidence_pages import text_of

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def seed_text(seed: str) -> str:
    path = SEEDS / seed
    if not path.exists():
        pytest.skip(f"no seed documents at {SEEDS}")
    return re.sub(r"\s+", "", path.read_text())


@pytest.mark.parametrize("finding", FINDINGS, ids=lambda finding: f"{finding.axis}-{finding.measure}")
def test_every_quote_is_in_its_seed_word_for_word_and_every_figure_in_the_seed(finding):
    text = seed_text(finding.seed)
    for quoted in re.findall(r"「(.*?)」", finding.quote):
        assert re.sub(r"\s+", "", quoted) in text
    if finding.value is not None:
        value = finding.value
        written = {str(value), f"{value:g}", f"{value:,.0f}", f"{value:.2f}".rstrip("0")}
        assert any(number in text for number in written), finding


def test_what_a_source_says_only_in_words_has_no_figure_and_says_so():
    worded = [finding for finding in FINDINGS if finding.value is None]
    assert {finding.axis for finding in worded} >= {"checksums", "host", "cpus"}
    assert all(finding.qualifier and finding.unstated for finding in worded)


@pytest.fixture
def checksum_study(db):
    build = BuildFactory(name="9.4", version="9.4.0")
    study = StudyFactory(title="checksums", builds=[build], baseline=build, scenarios=[ScenarioFactory()])
    Variant.objects.filter(study=study).update(data_checksums=False)
    Variant.objects.create(study=study, build=build, label="9.4 checksums on", data_checksums=True, position=1)
    return study


def findings_section(client, study: Study, language: str = "en") -> str:
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    if "published-findings" not in page:
        return ""
    return text_of(page.split('id="published-findings"')[1].split("</section>")[0])


def test_a_checksum_study_shows_what_seed_004_says_of_checksums_and_nothing_else(client, checksum_study):
    section = findings_section(client, checksum_study)
    assert "initdb -k (page checksums) vs none" in section and "no figure" in section
    assert "同程度の性能" in section and "KVM" not in section


def test_a_study_of_builds_alone_shows_no_findings(client, db):
    build = BuildFactory()
    study = StudyFactory(builds=[build], baseline=build, scenarios=[ScenarioFactory()])
    assert findings_section(client, study) == ""


def test_a_cpu_study_shows_the_core_scalability_figures_in_japanese(client, checksum_study):
    Variant.objects.filter(study=checksum_study).update(data_checksums=None)
    Variant.objects.filter(study=checksum_study, position=1).update(cpus=2)
    section = findings_section(client, checksum_study, "ja")
    assert "公表された知見" in section
    assert "最高 34,000 TPS" in section and "the highest" not in section
    assert "1.7 ×" in section and "指標" in section and "initdb -k" not in section


def test_the_published_2008_study_shows_its_own_table_sizes(client, db):
    build = BuildFactory(name="8.1.4", version="8.1.4")
    study = StudyFactory(
        kind=Study.Kind.PUBLISHED,
        status=Study.Status.DONE,
        builds=[build],
        baseline=build,
        source="DoRuby (アピリッツ技術ブログ)「Postgres8_3⇔8_1の性能比較してみました」",
    )
    section = findings_section(client, study)
    assert "as stated 452.462072 TPS" in section
    assert "after 141 MB" in section and "after 8.66 %" in section and "before 128 MB" in section
