"""Scale-out as deploy/SCALE-OUT.md describes it, on real processes: 3 targets (each its own sshd, user and work
dir), 2 Celery workers with their own hostnames, each serving the hosts it names (BENCHDASH_WORKER_HOSTS), one
Redis and one PostgreSQL. A host's trials run only on workers that serve it, the studies of different hosts run
at once, and one host never runs two trials at once, even two studies on the host both workers serve. A worker
without a host list takes every host's trials, those of hosts registered after it started too."""

import itertools
import os
from collections import defaultdict
from collections.abc import Iterator

import pytest
from django.urls import reverse

from benchdash.celery import host_queue
from benchdash.studies.models import Attempt, Study, Trial
from tests.queue.scale_out import SERVES, serving_workers, three_targets
from tests.queue.support import (
    form_data,
    own_work_dir,
    paced_reference_scenario,
    register_build,
    register_host,
    wait_for,
)
from tests.sshd import SshServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def targets() -> Iterator[list[SshServer]]:
    with three_targets() as servers:
        yield servers


def test_each_host_s_trials_run_only_on_its_workers_one_at_a_time_and_hosts_run_at_once(
    client, member, presets, celery_processes, targets, installed_build
):
    hosts = [register_host(server.spec) for server in targets]
    build = register_build(installed_build)
    for name, served in SERVES.items():
        celery_processes.env = {"BENCHDASH_WORKER_HOSTS": ",".join(served)}
        celery_processes.worker(name, concurrency=2)
    # One study per host, and a second one on target-2, which both workers serve.
    paced = paced_reference_scenario()
    for number, host in enumerate([*hosts, hosts[1]]):
        data = form_data(host=host, builds=[build], baseline=build, scenarios=[paced])
        extra = {"title": f"study {number} on {host.name}", "collect_sar": "", "collect_wait_events": ""}
        client.post(reverse("studies:new"), {**data, "client_levels": "1", "repetitions": "2", **extra})
    studies = Study.objects.filter(title__startswith="study ")
    wait_for(lambda: not studies.filter(status__in=("queued", "running")).exists(), 300, "the studies to end")

    trials = list(Trial.objects.filter(study__in=studies).select_related("host"))
    attempts = list(Attempt.objects.filter(trial__in=trials).select_related("trial__host").order_by("started_at"))
    by_host = defaultdict(list)
    for attempt in attempts:
        by_host[attempt.trial.host.name].append(attempt)
    overlaps = {
        host: [(one.pk, two.pk) for one, two in itertools.pairwise(runs) if two.started_at < one.finished_at]
        for host, runs in by_host.items()
    }
    strangers = [
        (attempt.trial.host.name, attempt.worker)
        for attempt in attempts
        if attempt.worker.split("@")[0] not in serving_workers(attempt.trial.host.name)
    ]
    assert [study.status for study in studies] == [Study.Status.DONE] * 4, [trial.error for trial in trials]
    tries = [(attempt.trial_id, attempt.worker, attempt.result, attempt.error) for attempt in attempts]
    assert len(trials) == 8 and all((t.status, t.attempts) == (Trial.Status.SUCCEEDED, 1) for t in trials), tries
    assert strangers == []
    assert overlaps == {"target-1": [], "target-2": [], "target-3": []}
    assert {attempt.worker.split("@")[0] for attempt in by_host["target-1"]} == {"west"}
    assert {attempt.worker.split("@")[0] for attempt in by_host["target-3"]} == {"east"}
    # Different hosts ran at the same time: some attempt on target-1 overlaps one on target-3.
    assert any(a.started_at < b.finished_at and b.started_at < a.finished_at
               for a in by_host["target-1"] for b in by_host["target-3"])  # fmt: skip
    for server, host in zip(targets, hosts, strict=True):  # each target's clusters belong to its own user
        owner = os.stat(os.path.join(own_work_dir(host), "clusters")).st_uid
        assert owner == os.stat(server.spec.work_dir).st_uid != 0 or os.geteuid() != 0


def test_a_worker_without_a_host_list_takes_the_trials_of_a_host_registered_after_it_started(
    client, member, presets, celery_processes, local_target, installed_build
):
    celery_processes.worker("everyone")  # BENCHDASH_WORKER_HOSTS unset: every host, looked up every second here
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[paced_reference_scenario()])
    client.post(reverse("studies:new"), {**data, "client_levels": "1", "collect_sar": "", "collect_wait_events": ""})
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 120, "the study to end")

    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE
    assert f"Started consuming from {host_queue(host.name)}" in celery_processes.log("everyone")
