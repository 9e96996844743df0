"""A trial's evidence row: written once by trial_finish from the outcome's artifacts, computable again from the
stored files by `manage.py refresh_evidence`, and saying which collector gave nothing and why."""

import io

import pytest
from django.core.management import call_command

from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.models import Trial, TrialEvidence
from tests.evidence_samples import real_artifacts
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory
from workers.spec import TrialOutcome

pytestmark = pytest.mark.django_db


def running_trial(repetition: int = 1, **study_fields) -> Trial:
    study = StudyFactory(status="running", duration_s=4, **study_fields)
    build, scenario = BuildFactory(), ScenarioFactory()
    study.builds.set([build])
    trial = TrialFactory(study=study, build=build, scenario=scenario, clients=4, repetition=repetition)
    return services.trial_claim(trial_id=trial.pk, worker="w")


def outcome(artifacts: dict[str, bytes], notes=(), ok=True) -> TrialOutcome:
    return TrialOutcome(
        ok=ok, tps=1500.0, transactions=6000, artifacts=dict(artifacts), notes=list(notes), error="" if ok else "boom"
    )


def test_finishing_a_trial_stores_its_summary_once():
    trial = running_trial(collect_sar=True, collect_wait_events=True, collect_perf=True)

    trial_finish(trial=trial, outcome=outcome(real_artifacts()))

    evidence = TrialEvidence.objects.get(trial=trial)
    assert evidence.cpu_user == pytest.approx(38.6625) and evidence.cpu_idle == pytest.approx(14.27)
    assert evidence.cpus == 2 and evidence.disk_device == "vda"
    # measured seconds = 6000 / 1500 = 4 s: the same window as the sar samples kept
    assert evidence.cpu_ms_per_transaction == pytest.approx(6370.8 / 6000)
    assert evidence.wait_samples == 4 and evidence.wait_events[0]["wait_event"] == "transactionid"
    assert evidence.perf_samples == 80 and evidence.perf_self[0]["function"] == "[postgres]"
    assert evidence.progress_seconds == 3 and evidence.unstable
    assert {name: state["state"] for name, state in evidence.collectors.items()} == {
        "progress": "ok",
        "sar": "ok",
        "wait_events": "ok",
        "perf": "ok",
        "table_health": "ok",
    }


def test_a_collector_the_study_turned_off_is_off_and_one_that_failed_says_why():
    trial = running_trial(collect_sar=True, collect_wait_events=False, collect_perf=True)
    artifacts = {key: value for key, value in real_artifacts().items() if key in ("progress", "perf_folded")}

    trial_finish(
        trial=trial,
        outcome=outcome(
            artifacts, notes=["sar: skipped, not installed on the host", "perf: from an extra profiled run"]
        ),
    )

    collectors = TrialEvidence.objects.get(trial=trial).collectors
    assert collectors["sar"] == {"state": "no_data", "reason": "sar: skipped, not installed on the host"}
    assert collectors["wait_events"] == {"state": "off", "reason": ""}
    assert collectors["perf"]["state"] == "ok"


def test_perf_is_not_expected_after_the_first_repetition():
    trial = running_trial(repetition=2, collect_perf=True)
    artifacts = {key: value for key, value in real_artifacts().items() if key != "perf_folded"}

    trial_finish(trial=trial, outcome=outcome(artifacts))

    assert TrialEvidence.objects.get(trial=trial).collectors["perf"]["state"] == "not_profiled"


def test_a_file_the_parsers_cannot_read_leaves_a_row_that_says_so_and_the_trial_is_kept():
    trial = running_trial(collect_sar=True)
    artifacts = {**real_artifacts(), "sar_series": b'{"time": ["not a time"], "cpu": {}}'}

    finished = trial_finish(trial=trial, outcome=outcome(artifacts))

    assert finished.status == Trial.Status.SUCCEEDED and finished.tps == 1500.0
    sar = TrialEvidence.objects.get(trial=trial).collectors["sar"]
    assert sar["state"] == "no_data" and sar["reason"].startswith("the summary failed: ValueError")


def test_a_file_of_the_wrong_shape_is_no_summary_either_and_the_trial_is_kept():
    trial = running_trial(collect_wait_events=True)
    artifacts = {**real_artifacts(), "wait_events": b'[["not", "an", "object"]]', "progress": b'{"t": 1}'}

    finished = trial_finish(trial=trial, outcome=outcome(artifacts))

    assert finished.status == Trial.Status.SUCCEEDED
    assert TrialEvidence.objects.get(trial=trial).collectors["wait_events"]["state"] == "no_data"


def test_an_attempt_that_goes_back_to_pending_writes_no_row():
    trial = running_trial()

    trial_finish(trial=trial, outcome=outcome(real_artifacts(), ok=False))

    assert Trial.objects.get(pk=trial.pk).status == Trial.Status.PENDING
    assert not TrialEvidence.objects.filter(trial=trial).exists()


def test_refresh_evidence_computes_the_rows_again_from_the_stored_files():
    trial = running_trial(collect_sar=True, collect_wait_events=True, collect_perf=True)
    trial_finish(trial=trial, outcome=outcome(real_artifacts()))
    TrialEvidence.objects.all().delete()  # as for a trial stored before the summaries existed
    output = io.StringIO()

    call_command("refresh_evidence", "--study", str(trial.study_id), stdout=output)

    evidence = TrialEvidence.objects.get(trial=trial)
    assert evidence.cpu_user == pytest.approx(38.6625)
    assert evidence.perf_samples == 80 and evidence.wait_samples == 4
    assert "1 trials summarised" in output.getvalue()


def test_refresh_evidence_refuses_an_unknown_study():
    with pytest.raises(Exception, match="no study with id 999999"):
        call_command("refresh_evidence", "--study", "999999", stdout=io.StringIO())
