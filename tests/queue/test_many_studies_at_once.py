"""Many short studies queued at once on several hosts, run by several workers: every trial runs once, none is
lost, every study is done (at small scale: 4 hosts, 2 workers, 12 studies; bench/many_studies_at_once.py runs 20
hosts, 4 workers and 100 studies)."""

import pytest

from benchdash.studies.models import Study
from tests.queue.many_studies import many_targets, outcome, queue_at_once, still_running
from tests.queue.support import attempt_history, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_twelve_studies_queued_at_once_on_four_hosts_run_each_trial_once(celery_processes, presets, installed_build):
    register_build(installed_build)
    with many_targets(4) as servers:
        hosts = [register_host(server.spec).name for server in servers]
        study_ids = queue_at_once(hosts, 12, paced_reference_scenario().slug)
        for name in ("first", "second"):
            celery_processes.worker(name, concurrency=2)
        wait_for(lambda: not still_running(study_ids), 300, "every study to end")

    result = outcome(study_ids)
    assert {name: result[name] for name in ("studies done", "trials", "succeeded")} == {
        "studies done": 12,
        "trials": 12,
        "succeeded": 12,
    }
    counts = {
        name: result[name] for name in ("claimed more than once", "attempt rows not one", "attempts lost or retried")
    }
    assert counts == dict.fromkeys(counts, 0), [
        attempt_history(study) for study in Study.objects.filter(pk__in=study_ids)
    ]
