"""The trials and attempts stored before failure kinds were a field get theirs once, from their errors' words, by
the data migration (benchdash/studies/migrations/0027_trial_failure_kind.py): the one place an error's text is
read (issue 40)."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from benchdash.studies.models import Attempt, Trial
from tests.factories import StudyFactory, TrialFactory

MIGRATION = importlib.import_module("benchdash.studies.migrations.0027_trial_failure_kind")
BEFORE = [("studies", "0026_studypoint_rounds")]

# Errors as the engine and the store wrote them before, each with the kind it gets.
ERRORS = {
    "attempt 1: ServerCannotStart: the server cannot start (its cause repeats):\nFATAL: could not map": "cause_repeats",
    "attempt 1: the artifact storage cannot keep an outcome: 0 bytes free, 67108864 bytes needed in /v": "storage_full",
    "attempt 2: the store could not keep the outcome: OperationalError: gone": "store_failed",
    "attempt 1: cancelled during reset": "cancelled",
    "attempt 3: worker lost (no heartbeat for 120 s)": "worker_lost",
    "attempt 1: worker lost (its pool process died); put back": "worker_lost",
    "attempt 1: host far unreachable since 2026-11-01 10:00:00 UTC: gave up after 4 s (limit 4 s): refused": (
        "host_unreachable"
    ),
    "attempt 1: host db-1 is busy with another benchdash installation (b-2)": "host_busy",
    "attempt 1: AttemptFenced: the fence names a later attempt": "fenced",
    "attempt 1: SudoRefused: sudo refused to run commands as pg without a password: run `make setup`": "sudo_refused",
    "attempt 1: UnknownSetting: unknown setting shared_bufers": "setting_refused",
    "attempt 1: CpuSetError: server processes outside CPU set 0-3": "setting_refused",
    "attempt 1: ConnectionLost: the SSH session dropped": "connection_lost",
    "attempt 1: TrialOverran: pgbench still ran 60s after its duration; stopped": "timed_out",
    "attempt 1: pgbench exited with status 1": "pgbench_failed",
    "attempt 1: no pgbench result in the output (no transaction count, no tps line) (exit status 2)": "pgbench_failed",
    "attempt 1: CommandFailed: pg_ctl start failed": "target_failed",
}


@pytest.mark.parametrize(("error", "kind"), ERRORS.items())
def test_each_error_in_use_gets_the_kind_its_failure_has(error, kind):
    assert MIGRATION.kind_of_error(error) == kind


@pytest.mark.django_db(transaction=True)
def test_migrating_gives_the_stored_failed_trials_and_attempts_their_kinds_and_the_others_none():
    study = StudyFactory()
    for repetition, error in enumerate(ERRORS, start=1):
        trial = TrialFactory(study=study, repetition=repetition, status=Trial.Status.FAILED, error=error)
        Attempt.objects.create(trial=trial, number=1, result="failed", started_at=timezone.now(), error=error)
    succeeded = TrialFactory(study=study, repetition=len(ERRORS) + 1, status=Trial.Status.SUCCEEDED)

    MigrationExecutor(connection).migrate(BEFORE)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    kinds = dict(Trial.objects.exclude(pk=succeeded.pk).values_list("error", "failure_kind"))
    assert kinds == ERRORS
    assert dict(Attempt.objects.values_list("error", "failure_kind")) == ERRORS
    assert Trial.objects.get(pk=succeeded.pk).failure_kind == ""


@pytest.mark.django_db(transaction=True)
def test_migrating_back_drops_the_kinds_and_keeps_the_errors():
    error = "attempt 1: cancelled during reset"
    trial = TrialFactory(status=Trial.Status.CANCELLED, error=error, failure_kind="cancelled")

    MigrationExecutor(connection).migrate(BEFORE)
    with connection.cursor() as cursor:
        cursor.execute("SELECT error FROM studies_trial WHERE id = %s", [trial.pk])
        assert cursor.fetchone() == (error,)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
