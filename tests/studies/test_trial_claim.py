"""trial_claim under real concurrency: many connections claim one pending trial at the same instant, and one wins."""

import threading

import pytest
from django.db import connection

from benchdash.studies.lifecycle import services
from benchdash.studies.models import Attempt, Study, Trial
from tests.factories import StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db(transaction=True)

CLAIMERS = 16
ROUNDS = 50


def claim_in_rounds(trial_id: int, worker: str, start: threading.Barrier, done: threading.Barrier, won: list) -> None:
    """One claimer with a connection of its own: claim when every claimer is ready, once per round."""
    try:
        for _ in range(ROUNDS):
            start.wait(timeout=60)
            if services.trial_claim(trial_id=trial_id, worker=worker) is not None:
                won.append(worker)
            done.wait(timeout=60)
    finally:
        connection.close()


def test_sixteen_connections_claiming_one_trial_at_once_make_one_winner_every_round():
    study = StudyFactory(status=Study.Status.QUEUED)
    trial = TrialFactory(study=study, host=study.db_host)
    start, done = threading.Barrier(CLAIMERS + 1), threading.Barrier(CLAIMERS + 1)
    won: list[str] = []
    claimers = [
        threading.Thread(target=claim_in_rounds, args=(trial.pk, f"w{number}", start, done, won))
        for number in range(CLAIMERS)
    ]
    for claimer in claimers:
        claimer.start()

    winners_per_round = []
    for _ in range(ROUNDS):
        Attempt.objects.filter(trial=trial).delete()
        Trial.objects.filter(pk=trial.pk).update(status=Trial.Status.PENDING, attempts=0)
        won.clear()
        start.wait(timeout=60)
        done.wait(timeout=60)
        winners_per_round.append(len(won))
    for claimer in claimers:
        claimer.join(timeout=60)

    assert winners_per_round == [1] * ROUNDS
    assert Attempt.objects.filter(trial=trial).count() == 1


def test_a_claim_after_a_cancel_gets_nothing():
    study = StudyFactory(status=Study.Status.QUEUED)
    trial = TrialFactory(study=study, host=study.db_host)
    services.study_cancel(study=study)

    assert services.trial_claim(trial_id=trial.pk, worker="late") is None
    assert Trial.objects.get(pk=trial.pk).status == Trial.Status.CANCELLED
