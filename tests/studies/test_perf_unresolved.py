"""The share of perf samples a build's symbols could not name, and the warning when builds differ in it."""

import pytest
from django.urls import reverse

from benchdash.studies.evidence.perf import is_unresolved, summarize_perf, unresolved_differ, unresolved_share
from tests.evidence_samples import real_artifacts
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

RESOLVED = "postgres;main;exec_simple_query;index_fetch_heap 60\npostgres;main;PostgresMain;ReadBuffer 40\n"
# The case: one build's frames are mostly [unknown] or the bare object name.
STRIPPED = "postgres;[unknown];[unknown] 746\npostgres;main;[postgres] 154\npostgres;main;ReadBuffer 100\n"


def _self_shares(folded: str) -> list[dict]:
    return [share.to_dict() for share in summarize_perf(folded).self_shares]


@pytest.mark.parametrize(
    ("function", "unresolved"),
    [("[unknown]", True), ("[postgres]", True), ("0x7f3a2b", True), ("ReadBuffer", False), ("index_fetch_heap", False)],
)
def test_a_frame_perf_could_not_name(function, unresolved):
    assert is_unresolved(function) is unresolved


def test_the_unresolved_share_of_a_build_and_when_builds_differ():
    assert unresolved_share(_self_shares(RESOLVED)) == 0.0
    assert unresolved_share(_self_shares(STRIPPED)) == pytest.approx(0.9)  # 746 + 154 of 1000
    assert unresolved_differ([0.0, 0.9]) and not unresolved_differ([0.02, 0.1]) and not unresolved_differ([0.9])


@pytest.mark.django_db
def test_the_study_page_warns_when_one_builds_symbols_resolve_and_the_others_do_not(client):
    from benchdash.studies.evidence.store import evidence_refresh

    scenario = ScenarioFactory(slug="perf-unresolved")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="15.0")
    study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, status="done", collect_perf=True)
    symbols = {old: "own symbol table", new: "stripped, no debug symbols for build ID a6ade789"}
    for build, folded in ((old, RESOLVED), (new, STRIPPED)):
        facts = {"symbols": symbols[build]}
        trial = succeeded_trial(study, build, scenario, 1, 1, 1000.0, transactions=4000, host_facts=facts)
        evidence_refresh(trial=trial, artifacts={**real_artifacts(), "perf_folded": folded.encode()})
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The builds differ in how much of their samples perf could name:" in page
    assert "0.0% unresolved" in page and "90.0% unresolved" in page
    # Why: what each build's server gave perf to name functions with, and the build ID to find debug symbols by.
    assert "90.0% (stripped, no debug symbols for build ID a6ade789)" in page and "0.0% (own symbol table)" in page
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "ビルド ID a6ade789 のデバッグシンボルなし" in page
