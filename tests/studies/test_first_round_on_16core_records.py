"""The first-round effect on the 16-core records (bench/data), replayed as the trials of a study in the real store:
a first round 16% faster than the rest is warned of on the study page, and with one warm-up run per cell it is gone
from the points."""

import csv
import io
from pathlib import Path

import pytest
from django.urls import reverse

from benchdash.studies.evidence.store import evidence_rows
from benchdash.studies.models import Study, StudyPoint, Trial, TrialEvidence
from benchdash.studies.results.first_round import study_first_round
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.store import points_refresh
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

pytestmark = pytest.mark.django_db

RECORD = Path(__file__).resolve().parents[2] / "bench/data/runs-16core-select-only-c16.csv"
ROUNDS = 5


def recorded_tps() -> list[float]:
    with RECORD.open() as lines:
        return [float(row["tps"]) for row in csv.DictReader(lines)]


def replayed_study(warmup_runs: int) -> Study:
    """Two builds at 16 clients, the record's runs dealt to them in the order they ran, round by round: a warm-up
    round 0 first (its trials marked warm-up) when the study has one, then ROUNDS counted rounds."""
    old, new = BuildFactory(version="18.3"), BuildFactory(version="18.4")
    study = StudyFactory(builds=[old, new], baseline=old, client_levels=[16], warmup_runs=warmup_runs)
    scenario = ScenarioFactory(slug="select-only-16core")
    runs = iter(recorded_tps())
    for repetition in range(1 - warmup_runs, ROUNDS + 1):
        for build in (old, new):
            warmup = repetition == 0
            succeeded_trial(study, build, scenario, 16, repetition, next(runs), warmup=warmup, point=False)
    points_refresh(study_id=study.pk)
    return study


def test_the_16_core_record_shows_a_first_round_faster_than_the_rest_on_the_study_page(client, member):
    study = replayed_study(warmup_runs=0)

    found = study_first_round(study_results(study))
    assert found is not None and found.cells == 2
    assert found.beyond_noise and found.faster
    assert found.percent == 16  # 263k and 236k against the medians of the other runs, 213k and 216k
    assert found.p_value < 0.01

    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    warning = page.split('id="first-round"')[1].split("</p>")[0]
    assert "The first round ran 16% faster than the rest" in warning
    assert "run the study again with a warm-up run per cell" in warning
    japanese = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "最初の周回が他の周回より 16% 速く実行されました" in japanese
    report = client.get(reverse("studies:report", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The first round ran 16% faster than the rest" in report.split('id="first-round"')[1].split("</p>")[0]


def test_with_the_warm_up_runs_left_out_the_effect_is_gone_from_the_points(client, member):
    study = replayed_study(warmup_runs=1)

    points = StudyPoint.objects.filter(study=study)
    assert [point.n for point in points] == [ROUNDS, ROUNDS]
    assert max(tps for point in points for tps in point.runs) < 240_000  # the record's 263k ran as a warm-up
    assert all(min(point.rounds) == 1 for point in points)
    found = study_first_round(study_results(study))
    assert found is not None and not found.beyond_noise
    assert found.percent <= 2

    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "within noise" in page.split('id="first-round"')[1].split("</p>")[0]
    trials = page.split('id="trials"')[1]
    assert trials.count('class="warmup"') == Trial.objects.filter(study=study, warmup=True).count() == 2


def test_the_summary_csv_and_the_api_carry_the_first_round_effect(client, member):
    study = replayed_study(warmup_runs=0)

    response = client.get(reverse("studies:summary_csv", args=[study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert [round(float(row["first_round_effect"]), 3) for row in rows] == [0.234, 0.091]  # 263k/213k, 236k/216k
    assert {round(float(row["study_first_round_effect"]), 3) for row in rows} == {0.163}
    assert float(rows[0]["study_first_round_p"]) < 0.01

    points = client.get(f"/api/v1/studies/{study.pk}/points").json()["items"]
    assert [round(point["first_round_effect"], 3) for point in points] == [0.234, 0.091]
    assert {round(point["study_first_round_effect"], 3) for point in points} == {0.163}
    trials = client.get(f"/api/v1/studies/{study.pk}/trials").json()["items"]
    assert {trial["warmup"] for trial in trials} == {False}


def test_a_warm_up_runs_evidence_stays_out_of_the_cells_evidence():
    study = replayed_study(warmup_runs=1)
    for trial in Trial.objects.filter(study=study, repetition__in=(0, 1)):
        TrialEvidence.objects.create(trial=trial)

    rows = evidence_rows(study)

    assert sorted(row.repetition for row in rows) == [1, 1]
