"""Attempts: one per claim, kept with its times; only the current one writes the trial; one cap on every path."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Artifact, Attempt, Study, Trial
from tests.factories import HostFactory, StudyFactory, TrialFactory
from workers.spec import TrialOutcome

pytestmark = pytest.mark.django_db


@pytest.fixture
def study() -> Study:
    study = StudyFactory(status=Study.Status.QUEUED, db_host=HostFactory(name="local", address="", work_dir="/tmp/x"))
    for position in range(2):
        TrialFactory(study=study, position=position, clients=position + 1)
    return study


def first(study: Study) -> Trial:
    return study.trials.order_by("position").first()


def lose_worker(trial: Trial) -> None:
    """What a vanished worker leaves: a running trial whose heartbeat stopped long ago."""
    Trial.objects.filter(pk=trial.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))


def good(tps: float = 100.0) -> TrialOutcome:
    outcome = TrialOutcome(ok=True, tps=tps, artifacts={"pgbench_stdout": b"tps = 100"})
    outcome.host_facts, outcome.timings = {"cpu_model": "fresh"}, {"facts": 0.1}
    return outcome


def test_each_claim_opens_an_attempt_with_its_number_worker_and_start(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="w1@host")
    attempt = Attempt.objects.get(trial=trial)
    assert (attempt.number, attempt.worker, attempt.result, attempt.finished_at) == (1, "w1@host", "running", None)
    assert attempt.started_at == trial.started_at


def test_the_spec_carries_the_attempt_and_a_fencing_token_that_grows(study):
    one = services.trial_claim(trial_id=first(study).pk, worker="w")
    trial_finish(trial=one, outcome=good())
    two = services.trial_claim(trial_id=study.trials.get(position=1).pk, worker="w")
    first_spec, second_spec = trial_spec(one), trial_spec(two)
    store, first_id = first_spec.fence.split(".")
    assert (first_spec.attempt, second_spec.attempt) == (1, 1)
    assert second_spec.fence.split(".")[0] == store
    assert int(second_spec.fence.split(".")[1]) > int(first_id)


def test_the_fencing_token_names_the_store_s_cluster_not_only_its_database(study):
    """Every fresh cluster gives its first database the same OID: two stores on one machine (two checkouts' `make
    run`, sharing the local work dir) would fence each other out by the OID alone."""
    trial = services.trial_claim(trial_id=first(study).pk, worker="w")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT system_identifier, (SELECT oid FROM pg_database WHERE datname = current_database())"
            " FROM pg_control_system()"
        )
        system_identifier, oid = cursor.fetchone()
    assert trial_spec(trial).fence.split(".")[0] == f"{system_identifier}-{oid}"


def test_finishing_closes_the_attempt_with_its_result_and_end(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="w")
    trial_finish(trial=trial, outcome=good())
    attempt = Attempt.objects.get(trial=trial)
    assert attempt.result == Attempt.Result.SUCCEEDED and attempt.finished_at >= attempt.started_at


def test_a_heartbeat_of_a_replaced_attempt_is_refused(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="old")
    lose_worker(trial)
    services.trials_orphaned()
    services.trial_claim(trial_id=trial.pk, worker="new")
    before = Trial.objects.get(pk=trial.pk).heartbeat_at

    assert services.trial_heartbeat(trial_id=trial.pk, attempt=1) is False
    assert services.attempt_is_current(trial_id=trial.pk, attempt=1) is False
    assert Trial.objects.get(pk=trial.pk).heartbeat_at == before
    assert services.trial_heartbeat(trial_id=trial.pk, attempt=2) is True


def test_a_replaced_attempt_stores_no_outcome_artifact_or_host_facts_but_its_end(study):
    old = services.trial_claim(trial_id=first(study).pk, worker="old")
    lose_worker(old)
    services.trials_orphaned()
    services.trial_claim(trial_id=old.pk, worker="new")

    after = trial_finish(trial=old, outcome=good(999.0))

    assert (after.status, after.attempts, after.tps) == (Trial.Status.RUNNING, 2, None)
    assert not Artifact.objects.filter(trial=old).exists()
    assert Host.objects.get(pk=study.db_host_id).facts == {}
    lost = Attempt.objects.get(trial=old, number=1)
    assert lost.result == Attempt.Result.LOST and lost.finished_at is not None
    assert Attempt.objects.get(trial=old, number=2).result == Attempt.Result.RUNNING


def test_a_cancel_tells_the_running_attempt_to_stop(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="w")
    assert services.attempt_is_current(trial_id=trial.pk, attempt=1) is True
    services.study_cancel(study=study)
    assert services.attempt_is_current(trial_id=trial.pk, attempt=1) is False


def test_artifact_files_are_named_by_attempt(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="w")
    trial_finish(trial=trial, outcome=good())
    assert Artifact.objects.get(trial=trial).file.name == f"artifacts/trials/{trial.pk}/attempt-1-pgbench_stdout.txt"


@override_settings(TRIAL_MAX_ATTEMPTS=2)
def test_beat_fails_a_lost_trial_on_its_last_attempt_and_the_study_goes_on(study, django_capture_on_commit_callbacks):
    trial = first(study)
    for _ in range(2):
        claimed = services.trial_claim(trial_id=trial.pk, worker="doomed")
        lose_worker(claimed)
        with django_capture_on_commit_callbacks() as callbacks:
            resent = services.trials_orphaned()
    trial.refresh_from_db()

    assert (trial.status, trial.attempts) == (Trial.Status.FAILED, 2)
    assert trial.error == "attempt 2: worker lost (no heartbeat for 120 s)"
    assert resent == [study.trials.get(position=1).pk] and len(callbacks) == 1
    assert list(Attempt.objects.filter(trial=trial).values_list("result", flat=True)) == ["lost", "lost"]


@override_settings(TRIAL_MAX_ATTEMPTS=2)
def test_a_lost_trial_with_attempts_left_goes_back_with_its_reason_and_is_sent_again(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="doomed")
    lose_worker(trial)
    assert services.trials_orphaned() == [trial.pk]
    trial.refresh_from_db()
    assert trial.status == Trial.Status.PENDING
    assert trial.error == "attempt 1: worker lost (no heartbeat for 120 s); put back"


@override_settings(TRIAL_MAX_ATTEMPTS=2)
def test_no_claim_goes_past_the_cap(study):
    trial = first(study)
    Trial.objects.filter(pk=trial.pk).update(attempts=2)
    assert services.trial_claim(trial_id=trial.pk, worker="w") is None
    assert Trial.objects.get(pk=trial.pk).attempts == 2


@override_settings(TRIAL_MAX_ATTEMPTS=2)
def test_a_pending_trial_past_a_lowered_cap_fails_when_the_study_goes_on(study, django_capture_on_commit_callbacks):
    trial = first(study)
    Trial.objects.filter(pk=trial.pk).update(attempts=3, error="attempt 3: ssh dropped")
    next_trial = services.study_continue(study_id=study.pk)
    trial.refresh_from_db()
    assert trial.status == Trial.Status.FAILED
    assert trial.error == "attempt 3: ssh dropped (no attempt left of 2)"
    assert next_trial.position == 1


@override_settings(TRIAL_MAX_ATTEMPTS=2)
def test_a_store_error_after_the_claim_counts_as_a_failed_attempt_under_the_cap(study):
    trial = first(study)
    stored = TrialOutcome(ok=False, error="the store could not keep the outcome: OSError: [Errno 28] No space left")
    for _ in range(2):
        trial = trial_finish(trial=services.trial_claim(trial_id=trial.pk, worker="w"), outcome=stored)
    assert (trial.status, trial.attempts) == (Trial.Status.FAILED, 2)
    assert trial.error.startswith("attempt 2: the store could not keep the outcome")
    assert services.trial_claim(trial_id=trial.pk, worker="w") is None


def test_the_trial_admin_lists_its_attempts(study, admin_client):
    trial = services.trial_claim(trial_id=first(study).pk, worker="w9@lab")
    trial_finish(trial=trial, outcome=TrialOutcome(ok=False, error="ssh dropped"))
    response = admin_client.get(reverse("admin:studies_trial_change", args=[trial.pk]))
    assert response.status_code == 200
    assert b"w9@lab" in response.content and b"ssh dropped" in response.content


@override_settings(TRIAL_MAX_ATTEMPTS=1)
def test_running_the_failed_trials_again_opens_new_attempts_and_keeps_the_old_ones(study):
    trial = first(study)
    failed = trial_finish(
        trial=services.trial_claim(trial_id=trial.pk, worker="w"), outcome=TrialOutcome(ok=False, error="boom")
    )
    services.study_continue(study_id=study.pk)
    Trial.objects.filter(study=study, status=Trial.Status.PENDING).update(status=Trial.Status.SUCCEEDED)
    services.study_continue(study_id=study.pk)
    assert services.study_retry_failed(study=Study.objects.get(pk=study.pk)) == 1

    again = services.trial_claim(trial_id=trial.pk, worker="w2")
    assert (failed.status, again.attempts) == (Trial.Status.FAILED, 1)
    old, new = Attempt.objects.filter(trial=trial)
    assert [(old.number, old.result), (new.number, new.result)] == [(1, "failed"), (1, "running")]
    assert int(trial_spec(again).fence.split(".")[1]) == new.pk
    trial_finish(trial=again, outcome=good())
    assert Attempt.objects.get(pk=old.pk).result == "failed" and Attempt.objects.get(pk=new.pk).result == "succeeded"


def test_a_lost_attempt_is_put_back_once_with_its_reason_and_never_a_later_one(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="bereaved")
    assert services.trial_put_back_lost(trial_id=trial.pk, attempt=1, why="its pool process died") is True
    assert services.trial_put_back_lost(trial_id=trial.pk, attempt=1, why="its pool process died") is False
    services.trial_claim(trial_id=trial.pk, worker="next")
    assert services.trial_put_back_lost(trial_id=trial.pk, attempt=1, why="late") is False

    trial.refresh_from_db()
    assert (trial.status, trial.attempts) == (Trial.Status.RUNNING, 2)
    assert trial.error == "attempt 1: its pool process died; put back"
    assert list(Attempt.objects.filter(trial=trial).values_list("number", "result", "error")) == [
        (1, "lost", "its pool process died"),
        (2, "running", ""),
    ]


@pytest.mark.django_db(transaction=True)
def test_two_workers_putting_back_one_lost_attempt_at_once_put_it_back_once(study):
    trial = services.trial_claim(trial_id=first(study).pk, worker="bereaved")
    both = threading.Barrier(2)

    def put_back(_: int) -> bool:
        both.wait()
        try:
            return services.trial_put_back_lost(trial_id=trial.pk, attempt=1, why="its pool process died")
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        results = sorted(pool.map(put_back, range(2)))

    assert results == [False, True]
    assert list(Attempt.objects.filter(trial=trial).values_list("number", "result")) == [(1, "lost")]
