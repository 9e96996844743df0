"""A real trial, run the way the worker runs it (trial_spec -> run_attempt -> trial_finish) on the local target
with Debian's PostgreSQL and sar, wait-event sampling and perf on: its evidence is computed from what the
collectors really produced, and the study and trial pages show it."""

import pytest
from django.urls import reverse

from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Scenario, TrialEvidence
from tests.factories import StudyFactory, TrialFactory
from tests.queue.support import register_build, register_host
from workers.attempt import run_attempt

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_a_real_trial_with_every_collector_on_leaves_its_evidence(client, local_target, installed_build):
    host, build = register_host(local_target), register_build(installed_build)
    scenario = Scenario.objects.create(slug="tpcb", name="TPC-B", builtin="tpcb-like", prewarm=False)
    study = StudyFactory(
        db_host=host,
        builds=[build],
        scenarios=[scenario],
        baseline=build,
        status="queued",
        duration_s=3,
        collect_sar=True,
        collect_wait_events=True,
        collect_perf=True,
    )
    trial = TrialFactory(study=study, build=build, scenario=scenario, host=host, clients=2, threads=1, reset_data=True)
    claimed = services.trial_claim(trial_id=trial.pk, worker="test")

    outcome = run_attempt(trial_spec(claimed), should_cancel=lambda: False)
    trial_finish(trial=claimed, outcome=outcome)

    assert outcome.ok, outcome.error
    evidence = TrialEvidence.objects.get(trial=trial)
    assert {name: state["state"] for name, state in evidence.collectors.items()} == {
        "progress": "ok",
        "sar": "ok",
        "wait_events": "ok",
        "perf": "ok",
        "table_health": "ok",
    }, evidence.collectors
    accounts = next(row for row in evidence.table_health if row["name"] == "pgbench_accounts")
    assert accounts["updates"] == outcome.transactions and accounts["bytes_before"] > 0
    cpu = [evidence.cpu_user, evidence.cpu_system, evidence.cpu_iowait, evidence.cpu_steal, evidence.cpu_idle]
    # nice, irq and softirq aside: a loaded machine spent 3.2% there (96.84 in all)
    assert 90 <= sum(cpu) <= 100.1, cpu
    assert evidence.cpu_ms_per_transaction > 0 and evidence.cpus >= 1
    assert evidence.progress_seconds >= 2 and evidence.tps_cv is not None
    assert evidence.wait_samples >= 2
    assert evidence.perf_samples > 0
    assert "PostgresMain" in {row["function"] for row in evidence.perf_children}
    assert evidence.perf_flame["labels"][0] == "all"

    study_page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    trial_page = client.get(reverse("studies:trial", args=[trial.pk])).content.decode()
    assert f"evidence-{scenario.pk}-cpu" in study_page and f"flame-{scenario.pk}-{build.pk}" in study_page
    assert 'id="trial-timeline"' in trial_page and 'id="trial-flame"' in trial_page
