"""The trials and attempts stored before failure kinds were a field get theirs once, from their errors' words, by
the data migration (benchdash/studies/migrations/0027_trial_failure_kind.py): the one place an error's text is
read (issue 40).

The migration's tests start from a copy where only its dependencies are applied (`database_before`) and write their
rows with the models as they stood there: the test database migrated back to 0026 and forward again, every later
migration of every app undone and redone, took seconds of CPU a test."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from benchdash.studies.models import Attempt, Trial
from tests.store_template import database_before

MIGRATION = importlib.import_module("benchdash.studies.migrations.0027_trial_failure_kind")
FAILURE_KIND = ("studies", "0027_trial_failure_kind")
BEFORE = ("studies", "0026_studypoint_rounds")

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


def trials_before_the_kinds(statuses: dict[str, str]) -> list[int]:
    """A trial for each error (of the status it maps to), with a failed attempt of that error where there is one,
    written with the models as they stood before the migration; their ids."""
    apps = MigrationExecutor(connection).loader.project_state(BEFORE).apps
    model = apps.get_model
    host = model("inventory", "Host").objects.create(name="local")
    build = model("inventory", "Build").objects.create(name="pg15", version="15.0", kind="release")
    scenario = model("studies", "Scenario").objects.create(slug="s", name="s")
    study = model("studies", "Study").objects.create(title="t", year=2025, db_host=host, baseline=build)
    variant = model("studies", "Variant").objects.create(label="pg15", build=build, study=study)
    trials = []
    for repetition, (error, status) in enumerate(statuses.items(), start=1):
        fields = {"clients": 1, "repetition": repetition, "position": repetition, "status": status, "error": error}
        trial = model("studies", "Trial").objects.create(
            study=study, variant=variant, build=build, scenario=scenario, host=host, **fields
        )
        if error:
            trial.attempt_log.create(number=1, result="failed", started_at=timezone.now(), error=error)
        trials.append(trial.pk)
    return trials


def errors_and_kinds(model: type[Trial | Attempt]) -> dict[str, str]:
    """Read by today's model: its two columns stand as they do on the copy."""
    return dict(model.objects.values_list("error", "failure_kind"))


@pytest.mark.django_db(transaction=True)
def test_migrating_gives_the_stored_failed_trials_and_attempts_their_kinds_and_the_others_none():
    with database_before(FAILURE_KIND):  # a copy with 0027's dependencies only, dropped after
        trials_before_the_kinds({**dict.fromkeys(ERRORS, "failed"), "": "succeeded"})

        MigrationExecutor(connection).migrate([FAILURE_KIND])

        trials, attempts = errors_and_kinds(Trial), errors_and_kinds(Attempt)
    assert trials == {**ERRORS, "": ""}
    assert attempts == ERRORS


@pytest.mark.django_db(transaction=True)
def test_migrating_back_drops_the_kinds_and_keeps_the_errors():
    error = "attempt 1: cancelled during reset"
    with database_before(FAILURE_KIND):
        [trial] = trials_before_the_kinds({error: "cancelled"})
        MigrationExecutor(connection).migrate([FAILURE_KIND])
        assert errors_and_kinds(Trial) == {error: "cancelled"}

        MigrationExecutor(connection).migrate([BEFORE])

        with connection.cursor() as cursor:
            cursor.execute("SELECT error FROM studies_trial WHERE id = %s", [trial])
            kept = cursor.fetchone()
            columns = connection.introspection.get_table_description(cursor, "studies_trial")
    assert kept == (error,)
    assert "failure_kind" not in {column.name for column in columns}
