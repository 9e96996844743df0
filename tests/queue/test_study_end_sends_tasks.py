"""A study's end does no work of its own in the process that ends it: a cancel's web request, or a trial's task that
settles its study, only sends tasks after commit (the clean-up on its DB host's queue, the change points, a bisect's
next step, its alerts), and a transaction that rolls back sends nothing. Each task, run twice, does its work once: one
next bisect step however often advance_bisect runs, one after the other or at once; beat's sweep moves on a bisect whose
task the broker never took. (The cloud's termination, run twice: tests/cloud/test_cloud_end.py.)"""

import base64
import json

import pytest
import redis
from django.db import transaction
from django.urls import reverse

from benchdash.celery import host_queue
from benchdash.changes.bisects import bisect_create
from benchdash.changes.models import Bisect, ChangePoint
from benchdash.queue.sweep import bisects_moved_on
from benchdash.queue.tasks import advance_bisect, changes_refresh
from benchdash.studies.lifecycle import services
from benchdash.studies.models import Study, Trial
from tests.at_once import at_once
from tests.changes.test_bisect_service import LEVELS, builds, finish
from tests.changes.test_changes_refresh import STEP, minor_series
from tests.factories import HostFactory, ScenarioFactory, StudyFactory

pytestmark = pytest.mark.django_db(transaction=True)

CHANGES_REFRESH = "benchdash.queue.tasks.changes_refresh"
ADVANCE_BISECT = "benchdash.queue.tasks.advance_bisect"
CLEAR_CLUSTERS = "benchdash.queue.tasks.clear_study_clusters"
RAISE_STUDY_ALERTS = "benchdash.queue.tasks.raise_study_alerts"


def tasks_in(broker: str, queue: str) -> list[tuple[str, list]]:
    """The (task, arguments) waiting in one of the broker's queues, oldest first."""
    messages = map(json.loads, redis.Redis.from_url(broker).lrange(queue, 0, -1))
    return [(message["headers"]["task"], json.loads(base64.b64decode(message["body"]))[0]) for message in messages]


def bisect_with_first_step() -> Bisect:
    """A bisect over five minors whose first step (17.0 against 17.4) is queued, its trials not yet run."""
    host = HostFactory(name="local", address="", facts={"cpu_threads": 2, "architecture": "x86_64"})
    template = StudyFactory(db_host=host, repetitions=9, max_repetitions=10, status=Study.Status.DONE)
    return bisect_create(template=template, scenario=ScenarioFactory(), clients=4, builds=builds())


def first_step_done(bisect: Bisect) -> Study:
    """What a worker leaves before the last trial's task settles the study: every trial succeeded, the study runs."""
    study = bisect.steps.get().study
    finish(study, LEVELS, status=Study.Status.RUNNING)
    return study


def flushed(broker: str) -> str:
    redis.Redis.from_url(broker).flushdb()
    return broker


def test_a_cancel_s_request_sends_the_tasks_of_the_end_and_recomputes_and_advances_nothing(client, member, broker):
    minor_series(STEP, status=Study.Status.DONE)  # a step that a refresh would find
    bisect = bisect_with_first_step()
    step = bisect.steps.get()
    studies = Study.objects.count()
    flushed(broker)

    response = client.post(reverse("studies:cancel", args=[step.study_id]))

    assert response.status_code == 302
    assert Study.objects.get(pk=step.study_id).status == Study.Status.CANCELLED
    assert not ChangePoint.objects.exists()
    step.refresh_from_db()
    assert (step.verdict, Bisect.objects.get(pk=bisect.pk).status) == ("", Bisect.Status.RUNNING)
    assert Study.objects.count() == studies
    sent = [(ADVANCE_BISECT, [step.study_id]), (CHANGES_REFRESH, [None]), (RAISE_STUDY_ALERTS, [step.study_id])]
    assert sorted(tasks_in(broker, "celery")) == sent
    assert tasks_in(broker, host_queue("local")) == [(CLEAR_CLUSTERS, [step.study_id, "local"])]

    assert advance_bisect(step.study_id) == Bisect.Status.FAILED
    assert changes_refresh(None) == 1


def test_a_step_s_end_in_its_last_trial_s_task_sends_advance_bisect_which_queues_one_next_step_run_twice(broker):
    bisect = bisect_with_first_step()
    study = first_step_done(bisect)
    flushed(broker)

    assert services.study_continue(study_id=study.pk) is None

    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE
    assert bisect.steps.count() == 1
    assert (ADVANCE_BISECT, [study.pk]) in tasks_in(broker, "celery")
    assert advance_bisect(study.pk) == Bisect.Status.RUNNING
    assert advance_bisect(study.pk) == ""
    steps = list(bisect.steps.order_by("number").values_list("verdict", "study__status"))
    assert steps == [("slower", Study.Status.DONE), ("", Study.Status.QUEUED)]


def test_advance_bisect_sent_twice_and_run_at_once_queues_one_next_step(broker):
    bisect = bisect_with_first_step()
    study = first_step_done(bisect)
    services.study_continue(study_id=study.pk)

    outcomes = at_once(lambda: advance_bisect(study.pk), 4)

    assert sorted(outcomes) == ["", "", "", Bisect.Status.RUNNING]
    assert bisect.steps.count() == 2
    assert Study.objects.filter(bisect_step__bisect=bisect).count() == 2


def test_a_rolled_back_end_sends_nothing_and_changes_nothing(broker):
    study = bisect_with_first_step().steps.get().study
    pending = study.trials.filter(status=Trial.Status.PENDING).count()
    flushed(broker)

    with pytest.raises(RuntimeError), transaction.atomic():
        assert services.study_cancel(study=study)
        raise RuntimeError("the request failed after the cancel")

    assert redis.Redis.from_url(broker).dbsize() == 0
    assert Study.objects.get(pk=study.pk).status == Study.Status.QUEUED
    assert study.trials.filter(status=Trial.Status.PENDING).count() == pending > 0


def test_beat_s_sweep_moves_on_a_bisect_whose_task_the_broker_never_took(redis_server):
    bisect = bisect_with_first_step()
    study = first_step_done(bisect)
    redis_server.stop(keep_data=False)  # the broker is away as the step ends: advance_bisect is not sent

    services.study_continue(study_id=study.pk)

    assert bisect.steps.count() == 1
    assert bisects_moved_on() == [study.pk]
    assert bisects_moved_on() == []
    assert bisect.steps.count() == 2
