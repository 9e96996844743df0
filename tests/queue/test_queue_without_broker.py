"""Queueing while the queue (Redis) is down: the study is saved and queued, the member is told its id and that it
starts once the queue can be reached, and it does start then: beat sends its first trial."""

import io

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.queue.support import form_data, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.django_db(transaction=True)]

ARGS = ["--host", "local", "--scenarios", "paced-reference", "--clients", "1", "--repetitions", "1"]


@pytest.mark.slow
def test_queue_study_with_redis_down_prints_the_id_and_the_study_starts_once_redis_is_back(
    presets, local_target, installed_build, redis_server, own_redis_processes
):
    register_host(local_target)
    build = register_build(installed_build)
    paced_reference_scenario()
    redis_server.stop(keep_data=False)
    out, err = io.StringIO(), io.StringIO()

    call_command("queue_study", *ARGS, "--builds", build.major, "--duration", "2", stdout=out, stderr=err)

    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert out.getvalue().strip() == str(study.pk)
    assert f"study {study.pk} is saved and queued, but the queue (Redis) cannot be reached now" in err.getvalue()
    assert study.status == Study.Status.QUEUED
    assert study.trials.get().heartbeat_at is None  # no task on its way: beat's to send

    redis_server.start()
    own_redis_processes.worker("late")
    own_redis_processes.beat()
    wait_for(lambda: Study.objects.get(pk=study.pk).status == Study.Status.DONE, 90, "the study to run")
    assert study.trials.get().status == Trial.Status.SUCCEEDED


def test_the_form_with_redis_down_saves_the_study_and_says_it_starts_once_redis_is_back(
    client, member, presets, local_target, installed_build, redis_server
):
    host, build = register_host(local_target), register_build(installed_build)
    redis_server.stop(keep_data=False)

    response = client.post(
        reverse("studies:new"),
        form_data(host=host, builds=[build], baseline=build, scenarios=[presets["pgbench-select-only"]]),
    )

    study = Study.objects.get(title="queue test")
    assert response.status_code == 302 and response.url == reverse("studies:detail", args=[study.pk])
    assert study.status == Study.Status.QUEUED
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        "Study saved and queued: 2 trials. The queue (Redis) cannot be reached now: the study starts once it can."
    ]
