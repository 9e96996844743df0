"""Noise history by host kind (studies/results/host_spread.py, inventory/host_kind.py): a new host borrows the spread
of hosts of its kind until it has its own, and says where it came from."""

import pytest
from django.urls import reverse
from django.utils import translation

from benchdash.inventory.host_kind import HostKind, hardware_kind, host_kind
from benchdash.studies.models import Study
from benchdash.studies.power_preview import preview_power
from benchdash.studies.results.host_spread import OWN_HISTORY_MIN_STUDIES, study_spreads
from benchdash.studies.results.queries import study_history_sources, study_results
from benchdash.studies.results.sequential import Design
from benchdash.studies.results.uncertainty import Method, Verdict
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs

QUIET_RUNS = [100.0, 101.0, 99.0, 100.5, 99.5]  # about 0.8%: 2 cells of 5 runs give 8 degrees of freedom
NOISY_RUNS = [100.0, 104.0, 96.0, 102.0, 98.0]  # about 3%
EPYC = {
    "cpu_model": "AMD EPYC 7571",
    "cpu_cores": 16,
    "memory_bytes": 64 * 2**30 - 310 * 2**20,  # MemTotal: a little under the 64 GiB installed
    "kernel": "6.1.0-13-amd64",
}
LIKE_EPYC = "hosts like this one: AMD EPYC 7571, 16 cores, 64 GiB, 6.1"


@pytest.fixture(autouse=True)
def english():
    """The wording as an English reader gets it (the site's default language is Japanese)."""
    with translation.override("en"):
        yield


@pytest.fixture
def builds(db):
    return BuildFactory(version="13.4"), BuildFactory(version="14.0")


@pytest.fixture
def scenario(db):
    return ScenarioFactory(slug="select-only-kind")


def done_study(host, scenario, builds, runs=QUIET_RUNS):
    """An earlier study on the host whose single cell pools 8 degrees of freedom."""
    old, new = builds
    return _study(host, scenario, builds, {(old, 1): runs, (new, 1): runs}, status=Study.Status.DONE)


def three_against_three(host, scenario, builds):
    """A study of 3 runs a side, 5% apart, whose rounds never pair (the baseline ran rounds 1-3, the other 4-6): by
    its own runs alone no interval at 95%, so "too few runs to tell"."""
    old, new = builds
    study = _study(host, scenario, builds, {(old, 1): [100.0, 101.0, 99.0]})
    succeeded_runs(study, scenario, {(new, 1): [105.0, 106.0, 104.0]}, first_repetition=4)
    return study


def _study(host, scenario, builds, figures, **fields):
    study = StudyFactory(db_host=host, builds=list(builds), scenarios=[scenario], baseline=builds[0], **fields)
    succeeded_runs(study, scenario, figures)
    return study


def new_build_point(study, builds):
    return next(point for point in study_results(study) if point.build_id == builds[1].pk)


def test_the_fingerprint_rounds_memory_and_keeps_the_kernels_major_and_minor():
    assert hardware_kind(EPYC) == HostKind(cpu_model="AMD EPYC 7571", cores=16, memory_gib=64, kernel="6.1")
    same_machine_newer_patch = {**EPYC, "memory_bytes": 64 * 2**30 + 2**20, "kernel": "6.1.0-20-amd64"}
    assert hardware_kind(same_machine_newer_patch) == hardware_kind(EPYC)
    assert hardware_kind({**EPYC, "kernel": "5.10.0-28-amd64"}) != hardware_kind(EPYC)
    assert hardware_kind({**EPYC, "kernel": None}) is None and hardware_kind({}) is None


@pytest.mark.django_db
def test_a_new_host_of_the_same_kind_gets_the_first_hosts_history_and_a_verdict(scenario, builds):
    first, second = HostFactory(name="epyc-1", facts=EPYC), HostFactory(name="epyc-2", facts=dict(EPYC))
    done_study(first, scenario, builds)
    study = three_against_three(second, scenario, builds)

    spread = study_spreads(study)[(scenario.pk, 1)]
    assert (spread.degrees, spread.studies, spread.kind) == (8, 1, LIKE_EPYC)
    point = new_build_point(study, builds)
    assert point.verdict == Verdict.FASTER and point.interval.method == Method.POOLED_T
    assert 1.02 < point.interval.low < 1.05 < point.interval.high
    assert study_history_sources(study, study_results(study)) == [f"from 1 study on {LIKE_EPYC}"]
    with translation.override("ja"):
        (japanese,) = study_history_sources(study, study_results(study))
    assert japanese == "この種類のホスト（AMD EPYC 7571、16 コア、64 GiB、カーネル 6.1） での 1 件の検証から"


@pytest.mark.django_db
def test_a_host_of_another_kind_gets_nothing_and_too_few_runs(scenario, builds):
    done_study(HostFactory(name="epyc-1", facts=EPYC), scenario, builds)
    other = HostFactory(name="xeon", facts={**EPYC, "cpu_model": "Intel Xeon Gold 6338"})
    unknown = HostFactory(name="no-facts")

    for host in (other, unknown):
        study = three_against_three(host, scenario, builds)
        assert study_spreads(study) == {}
        assert new_build_point(study, builds).verdict == Verdict.TOO_FEW_RUNS
        assert study_history_sources(study, study_results(study)) == []


@pytest.mark.django_db
def test_a_host_with_enough_history_of_its_own_uses_its_own(scenario, builds):
    kin, host = HostFactory(name="epyc-1", facts=EPYC), HostFactory(name="epyc-2", facts=EPYC)
    for _ in range(3):
        done_study(kin, scenario, builds, QUIET_RUNS)
    done_study(host, scenario, builds, NOISY_RUNS)
    one_own = three_against_three(host, scenario, builds)
    assert study_spreads(one_own)[(scenario.pk, 1)].kind == LIKE_EPYC  # one study of its own: the kind's wins
    assert study_spreads(one_own)[(scenario.pk, 1)].studies == 4  # its own among them

    Study.objects.filter(pk=one_own.pk).update(status=Study.Status.DONE)
    study = three_against_three(host, scenario, builds)
    spread = study_spreads(study)[(scenario.pk, 1)]
    assert (spread.kind, spread.studies, OWN_HISTORY_MIN_STUDIES) == ("", 2, 2)
    kind_pool = study_spreads(one_own)[(scenario.pk, 1)]  # mostly the quiet kin's
    assert spread.variance > 2 * kind_pool.variance
    assert study_history_sources(study, study_results(study)) == ["from 2 recent studies on this host"]


@pytest.mark.django_db
def test_the_preview_on_a_new_host_gives_its_kinds_spread_and_says_where_it_came_from(scenario, builds):
    done_study(HostFactory(name="epyc-1", facts=EPYC), scenario, builds)
    (row,) = preview_power(HostFactory(name="epyc-2", facts=EPYC), [scenario], [1], Design(planned=3), 0.02)
    assert row.power is not None and row.power.spread.degrees == 8
    assert (row.cv_percent, str(row.source_label)) == ("0.8%", f"from 1 study on {LIKE_EPYC}")
    (unknown,) = preview_power(HostFactory(name="new-xeon", facts={}), [scenario], [1], Design(planned=3), 0.02)
    assert unknown.power is None


@pytest.mark.django_db
def test_the_study_page_and_the_host_page_say_where_the_history_came_from(client, scenario, builds):
    first, second = HostFactory(name="epyc-1", facts=EPYC), HostFactory(name="epyc-2", facts=EPYC)
    done_study(first, scenario, builds)
    study = three_against_three(second, scenario, builds)

    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"from 1 study on {LIKE_EPYC}" in page and 'id="spread-history"' in page
    host_page = client.get(reverse("inventory:host_detail", args=[second.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert host_page.context["history"].kind_studies == 1
    text = host_page.content.decode()
    assert LIKE_EPYC in text and f"from 1 study on {LIKE_EPYC}" in text
    japanese = client.get(reverse("inventory:host_detail", args=[second.pk]), HTTP_ACCEPT_LANGUAGE="ja")
    assert "この種類のホスト" in japanese.content.decode()
    assert host_kind(second) == host_kind(first)
