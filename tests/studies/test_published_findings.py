"""The seeds' findings about comparisons other than versions: quoted word for word, numbers only where printed, and
shown on the pages of the studies that make the same comparison."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from benchdash.studies.models import Load, Study, Variant
from benchdash.studies.seed_data import FINDINGS
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory
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


def host_study(*hosts: dict, load: bool = False) -> Study:
    """A study of one build on these DB hosts (their facts), each alone and at once when load."""
    build = BuildFactory(name="13", version="13.0")
    rows = [HostFactory(name=f"db-{index}", facts=facts) for index, facts in enumerate(hosts)]
    study = StudyFactory(title="hosts", builds=[build], baseline=build, db_host=rows[0], scenarios=[ScenarioFactory()])
    Variant.objects.filter(study=study).delete()
    loads = [Load.ALONE, Load.AT_ONCE] if load else [""]
    for position, (host, each) in enumerate((host, each) for host in rows for each in loads):
        label = f"13 host={host.name} load={each}"
        Variant.objects.create(
            study=study, build=build, label=label, db_host=host, load=each, position=position, baseline=position == 0
        )
    return study


def test_a_kvm_study_shows_the_guest_findings_and_neither_the_windows_nor_the_docker_ones(client, db):
    study = host_study({"virtualization": "none"}, {"virtualization": "kvm"})
    section = findings_section(client, study)
    assert "KVM guest vs physical server" in section and "最大約10%の差" in section
    assert "Windows" not in section and "Docker" not in section and "loaded at once" not in section


def test_a_dual_boot_study_shows_the_windows_findings_only(client, db):
    study = host_study({"os_release": "Red Hat Enterprise Linux 8.3"}, {"os_release": "Windows Server 2019"})
    section = findings_section(client, study)
    assert "Linux (RHEL 8.3, xfs) vs Windows Server 2019" in section and "24接続を超えたところ" in section
    assert "KVM" not in section and "Docker" not in section


def test_a_study_of_two_guests_loaded_at_once_against_alone_shows_those_findings_only(client, db):
    study = host_study({"virtualization": "kvm"}, {"virtualization": "kvm"}, load=True)
    section = findings_section(client, study)
    assert "two KVM guests loaded at once vs one guest alone" in section and "7%程度の性能低下" in section
    assert "the two guests loaded at once, one vs the other" in section
    assert "KVM guest vs physical server" not in section and "Windows" not in section


def test_a_study_on_two_hosts_that_differ_in_nothing_known_shows_no_host_finding(client, db):
    assert findings_section(client, host_study({}, {})) == ""
