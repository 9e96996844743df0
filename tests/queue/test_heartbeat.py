"""The heartbeat thread, called directly: a beat the store refuses is a warning while the attempt runs, and nothing
while the attempt stores its own outcome (the trial's ordinary end races the last beat)."""

import logging
import threading
import time

import pytest

from benchdash.queue.heartbeat import AttemptWatch, _beat
from tests.factories import StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db(transaction=True)


def beats_for_a_while(watch: AttemptWatch) -> None:
    stop = threading.Event()
    thread = threading.Thread(target=_beat, args=(watch, stop))
    thread.start()
    time.sleep(0.3)
    stop.set()
    thread.join(timeout=5)


@pytest.mark.parametrize(("storing", "warned"), [(False, True), (True, False)])
def test_a_refused_beat_is_a_warning_only_while_the_attempt_is_not_storing_its_outcome(
    storing, warned, settings, caplog
):
    settings.TRIAL_HEARTBEAT_S = 0.05
    trial = TrialFactory(study=StudyFactory(status="running"), status="succeeded", attempts=1)  # ended: beats refused
    watch = AttemptWatch(trial.pk, 1)
    watch.storing = storing

    with caplog.at_level(logging.WARNING, logger="benchdash.queue.heartbeat"):
        beats_for_a_while(watch)

    assert ("is no longer current" in caplog.text) is warned
