"""A task that finds its trial cancelled stops the server the previous trial kept running for it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.queue.tasks import run_study_trial
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Study, Trial
from tests.factories import ScenarioFactory, StudyFactory, TrialFactory
from tests.queue.support import register_build, register_host
from workers.transport import connect
from workers.trial_cluster import prepare_cluster

# transaction=True: the task closes the connection a test transaction would hold (close_old_connections).
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def kept_server(local_target, installed_build):
    """A cancelled study whose pending trial was cancelled after the previous trial kept its server up."""
    study = StudyFactory(db_host=register_host(local_target), status=Study.Status.RUNNING)
    trial = TrialFactory(study=study, build=register_build(installed_build), scenario=ScenarioFactory(slug="kept"))
    with connect(trial_spec(trial).db_host) as transport:
        cluster = prepare_cluster(transport, trial_spec(trial))
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CANCELLED)
    Trial.objects.filter(pk=trial.pk).update(status=Trial.Status.CANCELLED)
    return trial, cluster


def test_the_task_of_a_cancelled_trial_stops_the_server_kept_for_it_and_clears_the_host_s_stale_wait_note(
    kept_server,
):
    trial, cluster = kept_server
    Host.objects.filter(pk=trial.study.db_host_id).update(unreachable_since=timezone.now() - timedelta(hours=1))
    assert cluster.is_running() is True
    assert run_study_trial(trial.pk) == "not pending"
    assert cluster.is_running() is False
    assert Host.objects.get(pk=trial.study.db_host_id).unreachable_since is None, "its connection: the host answers"


def test_it_leaves_the_server_alone_while_another_trial_runs_on_the_host(kept_server):
    trial, cluster = kept_server
    other = TrialFactory(study=StudyFactory(db_host=trial.study.db_host), build=trial.build, scenario=trial.scenario)
    Trial.objects.filter(pk=other.pk).update(status=Trial.Status.RUNNING)
    try:
        assert run_study_trial(trial.pk) == "not pending"
        assert cluster.is_running() is True
    finally:
        cluster.stop()
