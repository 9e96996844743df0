"""A trial whose server cannot start for its memory ends at its first attempt with PostgreSQL's own words."""

import pytest

from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Study
from tests.factories import ScenarioFactory, StudyFactory, TrialFactory
from tests.queue.support import register_build, register_host
from workers.attempt import run_attempt
from workers.failure_kind import FailureKind

pytestmark = pytest.mark.django_db


def test_shared_buffers_beyond_the_machines_memory_fail_the_trial_at_once_with_the_servers_hint(
    local_target, installed_build
):
    host = register_host(local_target)
    build = register_build(installed_build)
    study = StudyFactory(db_host=host, builds=[build], scenarios=[ScenarioFactory(slug="select")])
    # Behind the form's back (its memory check would refuse it): 1 TB, far beyond this machine's memory and swap.
    Study.objects.filter(pk=study.pk).update(pg_settings={"shared_buffers": "1TB"})
    trial = TrialFactory(study=study, build=build, scenario=study.scenarios.get(), reset_data=True)

    outcome = run_attempt(trial_spec(trial), should_cancel=lambda: False)

    assert not outcome.ok and outcome.deterministic and outcome.failure_kind == FailureKind.CAUSE_REPEATS
    assert "ServerCannotStart: the server cannot start (its cause repeats):" in outcome.error
    assert "FATAL:  could not map anonymous shared memory" in outcome.error
    assert "HINT:  This error usually means that PostgreSQL's request for a shared memory segment" in outcome.error


def test_a_trial_keeps_its_builds_configure_options_with_the_hosts_facts(local_target, installed_build):
    host = register_host(local_target)
    build = register_build(installed_build)
    study = StudyFactory(db_host=host, builds=[build], scenarios=[ScenarioFactory(slug="select")], duration_s=1)
    trial = TrialFactory(study=study, build=build, scenario=study.scenarios.get(), reset_data=True)

    outcome = run_attempt(trial_spec(trial), should_cancel=lambda: False)

    assert outcome.ok, outcome.error
    assert "'--prefix=" in outcome.host_facts["configure"]
    assert outcome.host_facts["symbols"].startswith("stripped, no debug symbols for build ID ")  # Debian's server
    assert {"microcode", "numa_nodes", "kernel", "cpu_governor", "turbo"} <= outcome.host_facts.keys()
