"""studies.lifecycle.specs.trial_spec: which trial keeps its server for the next one, and which reads the host facts."""

import pytest

from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Trial
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db
FACTS = {"cpu_model": "Test CPU", "sar": "/usr/bin/sar"}


@pytest.fixture
def study():
    return StudyFactory()


def add_trial(study, position, *, build=None, scenario=None, **fields):
    return TrialFactory(
        study=study,
        position=position,
        clients=position + 1,
        build=build or BuildFactory(version="15.0"),
        scenario=scenario or ScenarioFactory(slug="reference"),
        **fields,
    )


def test_a_trial_keeps_its_server_when_the_next_one_uses_the_same_data_without_a_reset(study):
    current = add_trial(study, 0, reset_data=True)
    add_trial(study, 1)
    assert trial_spec(current).keep_server is True


def test_a_trial_stops_its_server_when_the_next_one_resets_the_data(study):
    current = add_trial(study, 0)
    add_trial(study, 1, reset_data=True)
    assert trial_spec(current).keep_server is False


def test_a_trial_stops_its_server_when_the_next_one_uses_another_build_or_fillfactor(study):
    current = add_trial(study, 0)
    add_trial(study, 1, build=BuildFactory(version="13.0"))
    add_trial(study, 2, scenario=ScenarioFactory(slug="update", fillfactor=80))
    assert trial_spec(current).keep_server is False
    Trial.objects.filter(position=1).update(status=Trial.Status.SUCCEEDED)
    assert trial_spec(current).keep_server is False


def test_the_last_trial_and_a_trial_before_a_retry_stop_the_server(study):
    last = add_trial(study, 0)
    assert trial_spec(last).keep_server is False
    add_trial(study, 1, attempts=1)
    assert trial_spec(last).keep_server is False


def test_the_first_trial_reads_the_host_facts_and_the_next_ones_reuse_them(study):
    first = add_trial(study, 0)
    second = add_trial(study, 1)
    assert (trial_spec(first).collect_facts, trial_spec(first).known_facts) == (True, {})
    Trial.objects.filter(pk=first.pk).update(status=Trial.Status.SUCCEEDED, host_facts=FACTS)
    assert (trial_spec(second).collect_facts, trial_spec(second).known_facts) == (False, FACTS)


def test_a_retried_attempt_reads_the_host_facts_again(study):
    add_trial(study, 0, status=Trial.Status.SUCCEEDED, host_facts=FACTS)
    retried = add_trial(study, 1, attempts=2)
    spec = trial_spec(retried)
    assert (spec.collect_facts, spec.known_facts, spec.reset_data) == (True, {}, True)
