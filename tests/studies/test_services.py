"""Study services: create, enqueue, claim (one running trial per host), finish, retry, cancel, put back."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.design import Collectors, StudyDesign
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.models import Artifact, Study, Trial
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory
from workers.spec import TrialOutcome

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows():
    host = HostFactory(name="local", address="")
    return {
        "host": host,
        "new": BuildFactory(name="pg15-a", version="15.20"),
        "old": BuildFactory(name="pg15-b", version="15.19"),
        "reference": ScenarioFactory(slug="ref", reset="once"),
        "update": ScenarioFactory(slug="upd", reset="trial", fillfactor=80),
    }


def create_study(rows, host=None, **changes):
    design = StudyDesign(
        title="t",
        year=2025,
        db_host=host or rows["host"],
        builds=(rows["new"], rows["old"]),
        baseline=rows["old"],
        scenarios=(rows["reference"], rows["update"]),
        client_levels=(1, 2),
        repetitions=2,
        duration_s=2,
        scale=1,
        pg_settings={"work_mem": "4MB"},
        collectors=Collectors(sar=True),
        seed=9,
    )
    return services.study_create(design=design.replace(**changes))


def good_outcome(tps=1234.5):
    return TrialOutcome(
        ok=True,
        tps=tps,
        transactions=2469,
        command="pgbench -n -c 1",
        pgbench_version="15.20",
        server_version="15.20",
        artifacts={"pgbench_stdout": b"tps = 1234.5", "progress": b"[]"},
    )


def first_trial(study):
    return study.trials.order_by("position").first()


def test_it_creates_a_draft_study_with_its_planned_trials(rows):
    study = create_study(rows)
    trials = list(study.trials.order_by("position"))
    assert study.status == Study.Status.DRAFT
    assert len(trials) == 2 * 2 * 2 * 2
    assert all(trial.host == rows["host"] for trial in trials)
    assert [t.position for t in trials] == list(range(16))
    assert study.client_host == rows["host"]


def test_the_same_seed_plans_the_same_order(rows):
    one, two = create_study(rows), create_study(rows)

    def order(study):
        return list(study.trials.order_by("position").values_list("build", "scenario", "clients", "repetition"))

    assert order(one) == order(two)


def test_it_queues_a_draft_study_once_and_sends_its_first_trial_after_commit(rows, django_capture_on_commit_callbacks):
    study = create_study(rows)
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.study_enqueue(study=study) == services.Queued.SENT
        assert services.study_enqueue(study=study) == services.Queued.UNCHANGED
    assert study.status == Study.Status.QUEUED
    assert len(callbacks) == 1
    assert first_trial(study).heartbeat_at is not None


def test_a_claim_runs_the_trial_and_marks_the_study_running(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="w1")
    study.refresh_from_db()
    assert trial.status == Trial.Status.RUNNING and trial.attempts == 1 and trial.worker == "w1"
    assert study.status == Study.Status.RUNNING and study.started_at is not None


def test_a_second_claim_of_the_same_trial_gets_nothing(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial_id = first_trial(study).pk
    assert services.trial_claim(trial_id=trial_id, worker="w1") is not None
    assert services.trial_claim(trial_id=trial_id, worker="w2") is None
    assert Trial.objects.get(pk=trial_id).worker == "w1"


def test_it_refuses_a_second_running_trial_on_the_same_host_from_another_study(rows):
    first, second = create_study(rows), create_study(rows)
    services.study_enqueue(study=first)
    services.study_enqueue(study=second)
    services.trial_claim(trial_id=first_trial(first).pk, worker="w1")
    with pytest.raises(services.HostBusy):
        services.trial_claim(trial_id=first_trial(second).pk, worker="w2")
    assert first_trial(second).status == Trial.Status.PENDING
    assert Trial.objects.filter(status=Trial.Status.RUNNING).count() == 1


def test_studies_on_different_hosts_run_at_the_same_time(rows):
    other = HostFactory(name="other-host")
    first, second = create_study(rows), create_study(rows, host=other)
    for study in (first, second):
        services.study_enqueue(study=study)
    assert services.trial_claim(trial_id=first_trial(first).pk, worker="w1") is not None
    assert services.trial_claim(trial_id=first_trial(second).pk, worker="w2") is not None
    assert Trial.objects.filter(status=Trial.Status.RUNNING).count() == 2


def test_it_stores_a_good_outcome_with_its_artifacts(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="w1")
    finished = trial_finish(trial=trial, outcome=good_outcome())
    assert finished.status == Trial.Status.SUCCEEDED
    assert finished.tps == 1234.5 and finished.transactions == 2469 and finished.command == "pgbench -n -c 1"
    artifacts = {artifact.kind: artifact.file.read() for artifact in Artifact.objects.filter(trial=finished)}
    assert artifacts == {"pgbench_stdout": b"tps = 1234.5", "progress": b"[]"}


def test_freshly_read_host_facts_go_onto_the_host_and_reused_ones_leave_it_alone(rows):
    study = create_study(rows, repetitions=2)
    services.study_enqueue(study=study)
    first, second = study.trials.order_by("position")[:2]
    fresh = good_outcome()
    fresh.host_facts, fresh.timings = {"cpu_threads": 64}, {"facts": 0.07}
    trial_finish(trial=services.trial_claim(trial_id=first.pk, worker="w1"), outcome=fresh)
    host = Host.objects.get(pk=study.db_host_id)
    assert (host.facts, host.facts_updated_at is not None) == ({"cpu_threads": 64}, True)

    reused = good_outcome()
    reused.host_facts = {"cpu_threads": 64, "load_average": [9.0]}
    trial_finish(trial=services.trial_claim(trial_id=second.pk, worker="w1"), outcome=reused)
    assert Host.objects.get(pk=study.db_host_id).facts_updated_at == host.facts_updated_at


def test_an_outcome_is_never_stored_twice(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="w1")
    trial_finish(trial=trial, outcome=good_outcome(100.0))
    again = trial_finish(trial=trial, outcome=good_outcome(200.0))
    assert again.tps == 100.0
    assert Artifact.objects.filter(trial=trial, kind="pgbench_stdout").count() == 1


@override_settings(TRIAL_MAX_ATTEMPTS=2)
def test_a_failing_target_is_retried_then_marked_failed_with_its_output(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial_id = first_trial(study).pk
    bad = TrialOutcome(ok=False, error="pgbench aborted", artifacts={"pgbench_stderr": b"Run was aborted"})
    first = trial_finish(trial=services.trial_claim(trial_id=trial_id, worker="w"), outcome=bad)
    assert first.status == Trial.Status.PENDING and first.error == "attempt 1: pgbench aborted"
    second = trial_finish(trial=services.trial_claim(trial_id=trial_id, worker="w"), outcome=bad)
    assert second.status == Trial.Status.FAILED and second.attempts == 2
    assert second.error == "attempt 2: pgbench aborted"
    assert Artifact.objects.get(trial=second, kind="pgbench_stderr").file.read() == b"Run was aborted"


def test_the_study_goes_on_after_a_failed_trial_and_ends_failed(rows, django_capture_on_commit_callbacks):
    study = create_study(rows, client_levels=[1], repetitions=1, scenarios=[rows["reference"]], builds=[rows["old"]])
    services.study_enqueue(study=study)
    with override_settings(TRIAL_MAX_ATTEMPTS=1):
        trial = services.trial_claim(trial_id=first_trial(study).pk, worker="w")
        trial_finish(trial=trial, outcome=TrialOutcome(ok=False, error="ssh dropped"))
    assert services.study_continue(study_id=study.pk) is None
    study.refresh_from_db()
    assert study.status == Study.Status.FAILED and study.finished_at is not None


def test_the_study_is_done_when_every_trial_succeeded(rows):
    study = create_study(rows, client_levels=[1], repetitions=1, builds=[rows["old"]])
    services.study_enqueue(study=study)
    for _ in range(2):
        next_trial = study.trials.filter(status=Trial.Status.PENDING).order_by("position").first()
        trial = services.trial_claim(trial_id=next_trial.pk, worker="w")
        trial_finish(trial=trial, outcome=good_outcome())
        services.study_continue(study_id=study.pk)
    study.refresh_from_db()
    assert study.status == Study.Status.DONE


def test_continue_sends_the_next_pending_trial_in_planned_order(rows, django_capture_on_commit_callbacks):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="w")
    trial_finish(trial=trial, outcome=good_outcome())
    with django_capture_on_commit_callbacks() as callbacks:
        next_trial = services.study_continue(study_id=study.pk)
    assert next_trial.position == 1
    assert len(callbacks) == 1


def test_cancel_stops_the_pending_trials_and_keeps_the_finished_ones(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="w")
    trial_finish(trial=trial, outcome=good_outcome())
    running = services.trial_claim(trial_id=study.trials.get(position=1).pk, worker="w")
    assert services.study_cancel(study=study) is True
    assert services.study_is_cancelled(study_id=study.pk)
    ended = trial_finish(trial=running, outcome=TrialOutcome(ok=False, error="cancelled"))
    counts = {status: study.trials.filter(status=status).count() for status in Trial.Status.values}
    assert ended.status == Trial.Status.CANCELLED
    assert counts[Trial.Status.SUCCEEDED] == 1 and counts[Trial.Status.CANCELLED] == 15
    assert services.trial_claim(trial_id=study.trials.get(position=2).pk, worker="w") is None


def test_retry_failed_puts_failed_trials_back_and_queues_the_study(rows, django_capture_on_commit_callbacks):
    study = create_study(rows, client_levels=[1], repetitions=1, scenarios=[rows["reference"]])
    services.study_enqueue(study=study)
    with override_settings(TRIAL_MAX_ATTEMPTS=1):
        for trial in study.trials.order_by("position"):
            claimed = services.trial_claim(trial_id=trial.pk, worker="w")
            trial_finish(trial=claimed, outcome=TrialOutcome(ok=False, error="boom"))
    services.study_continue(study_id=study.pk)
    study.refresh_from_db()
    assert study.status == Study.Status.FAILED
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.study_retry_failed(study=study) == 2
    assert study.status == Study.Status.QUEUED
    assert set(study.trials.values_list("status", "attempts", "error")) == {("pending", 0, "")}
    assert len(callbacks) == 1


def test_beat_puts_back_a_trial_whose_worker_vanished(rows, django_capture_on_commit_callbacks):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="gone")
    Trial.objects.filter(pk=trial.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=10))
    with django_capture_on_commit_callbacks() as callbacks:
        resent = services.trials_orphaned()
    trial.refresh_from_db()
    assert resent == [trial.pk]
    assert trial.status == Trial.Status.PENDING and trial.attempts == 1
    assert len(callbacks) == 1


def test_beat_counts_no_silence_from_before_the_store_answered_again(rows):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="outlived")
    Trial.objects.filter(pk=trial.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=10))
    services.trials_orphaned(store_up_since=timezone.now() - timedelta(seconds=60))
    trial.refresh_from_db()
    assert (trial.status, trial.attempts) == (Trial.Status.RUNNING, 1)
    services.trials_orphaned(store_up_since=timezone.now() - timedelta(seconds=121))
    trial.refresh_from_db()
    assert (trial.status, trial.attempts) == (Trial.Status.PENDING, 1)


def test_beat_leaves_a_trial_with_a_fresh_heartbeat_alone(rows, django_capture_on_commit_callbacks):
    study = create_study(rows)
    services.study_enqueue(study=study)
    trial = services.trial_claim(trial_id=first_trial(study).pk, worker="alive")
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.trials_orphaned() == []
    trial.refresh_from_db()
    assert trial.status == Trial.Status.RUNNING
    assert callbacks == []


def test_beat_resends_a_queued_study_with_no_task_in_flight(rows):
    study = create_study(rows)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.QUEUED)
    assert services.trials_orphaned() == [first_trial(study).pk]
    assert services.trials_orphaned() == []


def test_a_published_study_is_never_touched_by_beat(rows):
    StudyFactory(kind=Study.Kind.PUBLISHED, status=Study.Status.DONE)
    assert services.trials_orphaned() == []
