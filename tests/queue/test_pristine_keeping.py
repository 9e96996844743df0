"""Which pristine data a host keeps (benchdash/queue/work_dir.py): none goes while a study is active there; then
what no cluster copied for BENCHDASH_PRISTINE_KEEP_DAYS goes, and what was cut short, and all of it when a member
clears the host's work dir."""

import pytest
from django.test import override_settings

from benchdash.inventory.models import Host
from benchdash.queue.work_dir import hosts_to_sweep, removable_pristine
from benchdash.studies.models import Study
from workers.work_dir_cleanup import PristineOnHost

pytestmark = pytest.mark.django_db

DAY_S = 24 * 3600
USED_YESTERDAY = PristineOnHost("/w/pristine/pg15-s1-f100-aaa", whole=True, idle_s=DAY_S, size_bytes=40 << 20)
UNUSED_FOR_WEEKS = PristineOnHost("/w/pristine/pg14-s1-f100-bbb", whole=True, idle_s=15 * DAY_S, size_bytes=40 << 20)
CUT_SHORT = PristineOnHost("/w/pristine/pg15-s1-f100-aaa.part-1a2b", whole=False, idle_s=60, size_bytes=9 << 20)
ENTRIES = [USED_YESTERDAY, UNUSED_FOR_WEEKS, CUT_SHORT]


@pytest.fixture
def host() -> Host:
    return Host.objects.create(name="db1", address="192.0.2.10", username="bench", work_dir="/w")


def paths(entries: list[PristineOnHost]) -> list[str]:
    return [entry.path for entry in entries]


def test_what_was_used_lately_stays_and_the_rest_goes(host):
    assert paths(removable_pristine(host, ENTRIES, clear_kept=False)) == paths([UNUSED_FOR_WEEKS, CUT_SHORT])
    assert paths(removable_pristine(host, ENTRIES, clear_kept=True)) == paths(ENTRIES)


@override_settings(PRISTINE_KEEP_DAYS=0)
def test_with_no_days_to_keep_it_goes_once_no_study_is_active(host):
    assert paths(removable_pristine(host, ENTRIES, clear_kept=False)) == paths(ENTRIES)


@pytest.mark.parametrize("status", [Study.Status.QUEUED, Study.Status.RUNNING])
def test_nothing_goes_while_a_study_is_active_on_the_host(host, status):
    Study.objects.create(title="active", year=2026, db_host=host, status=status)
    assert removable_pristine(host, ENTRIES, clear_kept=True) == []


def test_the_sweep_visits_a_host_that_holds_only_pristine_data(host):
    Host.objects.filter(pk=host.pk).update(
        work_dir_usage={"clusters": 0, "pristine": 40 << 20}, work_dir_measured_at="2026-11-27T00:00Z"
    )
    assert hosts_to_sweep() == [host]
