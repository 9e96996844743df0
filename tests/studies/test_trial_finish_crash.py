"""trial_finish writes files, then commits, then refreshes: a worker killed (SIGKILL) between any two steps loses
nothing and leaves nothing behind once beat's repair has run (trials_orphaned, trials_outputs_repair)."""

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection

from benchdash.studies.lifecycle import outcome as finish
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.artifact_files import trial_folder
from benchdash.studies.models import Artifact, StudyPoint, Trial, TrialEvidence
from tests.evidence_samples import real_artifacts
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory
from tests.store_template import store_url
from workers.spec import TrialOutcome

pytestmark = pytest.mark.django_db(transaction=True)

# The child process: the worker's side of trial_finish, killed where the test says.
CHILD = """
import os, signal, sys
import django
django.setup()
from benchdash.studies.lifecycle import outcome as finish
from benchdash.studies.models import Trial
from workers.spec import TrialOutcome
from tests.evidence_samples import real_artifacts

def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

setattr(finish, sys.argv[2], killed)
trial = Trial.objects.get(pk=int(sys.argv[1]))
outcome = TrialOutcome(ok=True, tps=1500.0, transactions=6000, artifacts=real_artifacts())
finish.trial_finish(trial=trial, outcome=outcome)
"""

# Each step of trial_finish, named by the function the next one starts with.
KILLED_BEFORE = {
    "the commit": "_outcome_commit",
    "the replaced files are removed": "files_delete",
    "points and evidence are refreshed": "trial_outputs_refresh",
}


@pytest.fixture
def media(settings, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def second_attempt(media: Path) -> Trial:
    """A trial whose first attempt failed with its files stored, and whose second attempt runs now."""
    study = StudyFactory(status="running", duration_s=4, collect_sar=True, collect_wait_events=True)
    build, scenario = BuildFactory(), ScenarioFactory()
    study.builds.set([build])
    trial = TrialFactory(study=study, build=build, scenario=scenario, clients=4, repetition=1)
    first = services.trial_claim(trial_id=trial.pk, worker="w")
    finish.trial_finish(trial=first, outcome=TrialOutcome(ok=False, error="boom", artifacts=real_artifacts()))
    return services.trial_claim(trial_id=trial.pk, worker="w")


def run_killed_worker(trial: Trial, step: str, media: Path, settings) -> int:
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "benchdash.settings",
        "DATABASE_URL": store_url(connection.settings_dict["NAME"]),
        "BENCHDASH_VAR_DIR": str(media.parent),
        "BENCHDASH_SECRETS_DIR": str(settings.SECRETS_DIR),
    }
    child = subprocess.run([sys.executable, "-c", CHILD, str(trial.pk), step], env=env, cwd=Path.cwd(), timeout=60)
    return child.returncode


def beat_repairs(trial: Trial, monkeypatch) -> None:
    """What beat's next runs do, now: a silent running attempt is put back, and due outputs are finished."""
    monkeypatch.setattr(finish, "OUTPUTS_REPAIR_AFTER", timedelta(0))
    Trial.objects.filter(pk=trial.pk, status="running").update(heartbeat_at="2000-01-01T00:00:00Z")
    services.trials_orphaned()
    finish.trials_outputs_repair()


def files_on_disk(media: Path, trial: Trial) -> set[str]:
    folder = media / trial_folder(trial.pk)
    return {f"{trial_folder(trial.pk)}/{path.name}" for path in folder.iterdir()} if folder.exists() else set()


@pytest.mark.parametrize("moment", KILLED_BEFORE)
def test_a_worker_killed_before_each_step_loses_nothing_and_leaves_nothing(moment, media, settings, monkeypatch):
    trial = second_attempt(media)

    assert run_killed_worker(trial, KILLED_BEFORE[moment], media, settings) == -9
    beat_repairs(trial, monkeypatch)

    trial.refresh_from_db()
    rows = set(Artifact.objects.filter(trial=trial).values_list("file", flat=True))
    assert files_on_disk(media, trial) == rows  # nothing orphaned, nothing a row names is missing
    assert trial.outputs_due_at is None
    if moment == "the commit":  # the second attempt never counted: the trial runs again, with its first files
        assert (trial.status, trial.tps) == (Trial.Status.PENDING, None)
        assert all("/attempt-1-" in name for name in rows) and len(rows) == len(real_artifacts())
        return
    assert (trial.status, trial.tps) == (Trial.Status.SUCCEEDED, 1500.0)
    assert all("/attempt-2-" in name for name in rows) and len(rows) == len(real_artifacts())
    point = StudyPoint.objects.get(study=trial.study, build=trial.build, scenario=trial.scenario, clients=4)
    assert point.median == 1500.0
    assert TrialEvidence.objects.get(trial=trial).cpu_idle == pytest.approx(14.27)


def test_an_attempt_that_is_no_longer_current_keeps_no_file(media):
    trial = second_attempt(media)
    Trial.objects.filter(pk=trial.pk).update(status="pending")  # beat put it back meanwhile

    finish.trial_finish(trial=trial, outcome=TrialOutcome(ok=True, tps=1.0, artifacts=real_artifacts()))

    rows = set(Artifact.objects.filter(trial=trial).values_list("file", flat=True))
    assert files_on_disk(media, trial) == rows and all("/attempt-1-" in name for name in rows)
