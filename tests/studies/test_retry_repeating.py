""" "Run the failed trials again" says when a trial failed for a cause that repeats (workers/repeating_failure.py)."""

import pytest
from django.urls import reverse

from benchdash.studies.lifecycle import services
from benchdash.studies.models import FailureKind, Study, Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db

CAUSE = (
    "attempt 1: ServerCannotStart: the server cannot start (its cause repeats):\n"
    "FATAL:  could not map anonymous shared memory: Cannot allocate memory\n"
    "HINT:  This error usually means that PostgreSQL's request for a shared memory segment exceeded available memory"
)


def test_retrying_a_trial_whose_cause_repeats_says_so_with_the_servers_words(client, member):
    build = BuildFactory()
    study = StudyFactory(builds=[build], scenarios=[ScenarioFactory()], status=Study.Status.FAILED)
    scenario = study.scenarios.get()
    failed = {"study": study, "build": build, "scenario": scenario, "status": Trial.Status.FAILED}
    TrialFactory(**failed, repetition=1, error=CAUSE, failure_kind=FailureKind.CAUSE_REPEATS)
    TrialFactory(**failed, repetition=2, error="attempt 2: ssh dropped", failure_kind=FailureKind.CONNECTION_LOST)
    assert services.repeating_failures(study=study) == [CAUSE]
    response = client.post(reverse("studies:retry_failed", args=[study.pk]), follow=True, HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    assert "2 failed trials queued again." in page
    assert "Some of them failed for a cause that repeats" in page
    assert "could not map anonymous shared memory" in page and "HINT:" in page
    assert services.repeating_failures(study=study) == []  # queued again: the error and its kind are cleared
    assert set(study.trials.values_list("failure_kind", flat=True)) == {""}


def test_a_failure_is_taken_for_one_whose_cause_repeats_by_its_kind_never_by_its_words():
    build = BuildFactory()
    study = StudyFactory(builds=[build], scenarios=[ScenarioFactory()], status=Study.Status.FAILED)
    failed = {"study": study, "build": build, "scenario": study.scenarios.get(), "status": Trial.Status.FAILED}
    TrialFactory(**failed, repetition=1, error="attempt 1: pgbench printed (its cause repeats)", failure_kind="")
    TrialFactory(**failed, repetition=2, error="attempt 1: FATAL: no", failure_kind=FailureKind.CAUSE_REPEATS)

    assert services.repeating_failures(study=study) == ["attempt 1: FATAL: no"]


def test_retrying_failures_that_may_pass_says_nothing_more(client, member):
    build = BuildFactory()
    study = StudyFactory(builds=[build], scenarios=[ScenarioFactory()], status=Study.Status.FAILED)
    TrialFactory(study=study, build=build, scenario=study.scenarios.get(), status=Trial.Status.FAILED, error="boom")
    response = client.post(reverse("studies:retry_failed", args=[study.pk]), follow=True, HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    assert "1 failed trials queued again." in page and "cause that repeats" not in page
