"""trial_give_back: an attempt that found its DB host busy with another installation costs the trial nothing."""

import pytest

from benchdash.studies.lifecycle import services
from benchdash.studies.models import Attempt, Study, Trial
from tests.factories import StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db


def test_a_given_back_trial_is_pending_again_with_its_attempt_taken_back():
    study = StudyFactory(status=Study.Status.QUEUED)
    trial = TrialFactory(study=study, host=study.db_host)
    claimed = services.trial_claim(trial_id=trial.pk, worker="w1")
    assert claimed is not None and claimed.attempts == 1

    assert services.trial_give_back(trial_id=trial.pk, attempt=1) is True

    trial.refresh_from_db()
    assert (trial.status, trial.attempts) == (Trial.Status.PENDING, 0)
    assert not Attempt.objects.filter(trial=trial).exists()
    again = services.trial_claim(trial_id=trial.pk, worker="w2")
    assert again is not None and again.attempts == 1


def test_an_attempt_that_is_no_longer_the_trial_s_gives_nothing_back():
    study = StudyFactory(status=Study.Status.QUEUED)
    trial = TrialFactory(study=study, host=study.db_host)
    services.trial_claim(trial_id=trial.pk, worker="w1")
    Trial.objects.filter(pk=trial.pk).update(status=Trial.Status.SUCCEEDED)

    assert services.trial_give_back(trial_id=trial.pk, attempt=1) is False

    trial.refresh_from_db()
    assert (trial.status, trial.attempts) == (Trial.Status.SUCCEEDED, 1)
    assert Attempt.objects.filter(trial=trial).count() == 1
