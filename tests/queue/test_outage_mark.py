"""Since when the store has answered, as the sweep reads it: its start, or its return after a failed write marked in
the broker (benchdash/queue/outage_mark.py), on the test's own Redis db and the test store."""

import pytest

from benchdash.queue.outage_mark import note_store_unreachable, store_up_since
from benchdash.store_clock import store_now, store_started_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def marks(broker: str, settings) -> str:
    settings.CELERY_BROKER_URL = broker
    return broker


def test_without_a_failed_write_the_store_answers_since_its_start(marks):
    assert store_up_since() == store_started_at()


def test_a_failed_write_makes_the_next_sweep_count_from_its_own_time(marks):
    note_store_unreachable()
    before = store_now()
    back = store_up_since()
    assert before <= back <= store_now()
    assert store_up_since() == back  # the mark is taken once: later sweeps keep the same return


def test_a_broker_out_of_reach_leaves_the_store_start(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    note_store_unreachable()
    assert store_up_since() == store_started_at()
