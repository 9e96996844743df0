"""The evidence a report gives for each difference: what the collectors saw at that level, from real collector
outputs (tests/evidence_samples.py), as the PDF prints it."""

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from benchdash.studies.evidence.store import evidence_refresh
from tests.evidence_samples import SEED_13, SEED_14, folded, real_artifacts
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

pytestmark = pytest.mark.django_db


def test_a_slower_build_s_line_names_its_bottleneck_and_the_function_that_grew(client):
    scenario = ScenarioFactory(slug="pgecons-reference", name="Reference")
    old, new = BuildFactory(version="13.4", name="PG 13.4"), BuildFactory(version="14.0", name="PG 14.0")
    study = StudyFactory(
        title="with evidence", builds=[old, new], scenarios=[scenario], baseline=old, status="done", duration_s=4,
        collect_sar=True, collect_wait_events=True, collect_perf=True,
    )  # fmt: skip
    runs = {old: [437.0, 440.0, 435.0, 438.0, 436.0], new: [412.0, 410.0, 414.0, 411.0, 413.0]}
    for build, stacks in ((old, SEED_13), (new, SEED_14)):
        for repetition, tps in enumerate(runs[build], start=1):
            trial = succeeded_trial(study, build, scenario, 1, repetition, tps, transactions=int(tps * 4))
            evidence_refresh(trial=trial, artifacts={**real_artifacts(), "perf_folded": folded(stacks)})

    url = reverse("reports:study_file", kwargs={"pk": study.pk, "language": "en", "extension": "pdf"})
    pdf = PdfReader(io.BytesIO(client.get(url).content))
    text = " ".join(" ".join(page.extract_text() for page in pdf.pages).split())

    assert "1 client, PG 14.0: 94% (" in text and "), slower." in text
    assert "bottleneck lock/wait-bound → lock/wait-bound" in text  # the real samples: Lock transactionid waits
    assert "perf: index_fetch_heap +6.7 points of samples" in text  # the seed's finding: 100 of 1000 -> 180 of 1080
    assert "wait event" not in text  # both builds' waits are the same samples: nothing moved
