"""A small history for the API tests: two official studies chaining 13 -> 14 -> 15 and one unofficial."""

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.db import transaction

from benchdash.inventory.models import Build, Host
from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Scenario, Study
from tests.evidence_samples import real_artifacts
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs


@dataclass
class History:
    host: Host
    scenario: Scenario
    builds: dict[str, Build]
    older: Study  # 13.4 vs 14.0, official: 14.0 is 10% faster
    newer: Study  # 14.3 vs 15.2, official: 15.2 is 20% faster
    smoke: Study  # 14.3 alone, not official


@pytest.fixture
def history(db: None) -> History:
    return history_made()


@pytest.fixture(scope="module")
def history_of_the_module(django_db_setup: None, django_db_blocker) -> Iterator[History]:
    """One history for a module whose tests only read it (each in a savepoint of its own, as the `db` fixture
    makes it, within this transaction, rolled back after the module): Django's setUpTestData. Not for a module with
    transactional tests, whose flush would wait on this transaction."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield history_made()
        transaction.set_rollback(True)


def history_made() -> History:
    host = HostFactory(name="db-1", address="192.0.2.7", username="bench", host_key="ssh-ed25519 AAAA", key_path="/k")
    scenario = ScenarioFactory(slug="update", name="更新系")
    builds = {version: BuildFactory(version=version) for version in ("13.4", "14.0", "14.3", "15.2")}
    older = _study(2021, host, scenario, builds["13.4"], builds["14.0"], 1.1)
    newer = _study(2022, host, scenario, builds["14.3"], builds["15.2"], 1.2)
    smoke = StudyFactory(year=2023, db_host=host, builds=[builds["14.3"]], scenarios=[scenario], official=False)
    succeeded_runs(smoke, scenario, {(builds["14.3"], 1): [500.0]})
    return History(host, scenario, builds, older, newer, smoke)


def _study(year: int, host: Host, scenario: Scenario, old: Build, new: Build, ratio: float) -> Study:
    study = StudyFactory(
        year=year,
        db_host=host,
        builds=[old, new],
        scenarios=[scenario],
        baseline=old,
        status=Study.Status.DONE,
        official=True,
        repetitions=4,
    )
    figures = {
        (old, clients): [99.0 * clients, 100.0 * clients, 100.0 * clients, 101.0 * clients] for clients in (1, 2)
    }
    figures |= {(new, clients): [100.0 * clients * ratio] * 4 for clients in (1, 2)}
    succeeded_runs(study, scenario, figures)
    return study


@pytest.fixture
def evidence_trial(history: History):
    trial = history.older.trials.order_by("position").first()
    evidence_refresh(trial=trial, artifacts=real_artifacts())
    return trial
