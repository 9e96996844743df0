"""Two worker processes on one queue, every trial's task sent three times at once: each trial runs once, and no two
attempts on the host ever overlap in time (each attempt's start and end are kept)."""

import itertools

import pytest
from django.urls import reverse

from benchdash.queue.tasks import run_study_trial
from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.support import (
    attempt_history,
    form_data,
    paced_reference_scenario,
    register_build,
    register_host,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DUPLICATES = 2


def test_duplicate_tasks_on_two_workers_never_run_a_trial_twice_or_two_attempts_at_once(
    client, member, presets, celery_processes, local_target, installed_build
):
    host, build = register_host(local_target), register_build(installed_build)
    for name in ("left", "right"):
        celery_processes.worker(name)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[paced_reference_scenario()])
    client.post(reverse("studies:new"), {**data, "repetitions": "2", "collect_sar": "", "collect_wait_events": ""})
    study = Study.objects.get(title="queue test")
    for trial_id in study.trials.values_list("pk", flat=True):
        for _ in range(DUPLICATES):
            run_study_trial.apply_async((trial_id,), ignore_result=True)

    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 240, "the study to end")

    study.refresh_from_db()
    trials = list(study.trials.all())
    attempts = list(Attempt.objects.filter(trial__study=study).order_by("started_at"))
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert [(trial.status, trial.attempts) for trial in trials] == [(Trial.Status.SUCCEEDED, 1)] * 4
    assert len(attempts) == 4 and all(attempt.finished_at is not None for attempt in attempts)
    overlaps = [(one.pk, two.pk) for one, two in itertools.pairwise(attempts) if two.started_at < one.finished_at]
    assert overlaps == []
    assert {attempt.worker.split("@")[0] for attempt in attempts} <= {"left", "right"}
