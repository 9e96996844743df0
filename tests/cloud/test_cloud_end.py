"""A cloud study's instances are terminated when it is done (a real worker runs it on the sshd standing in for
them), when it failed and when it is cancelled (the worker takes study_ended's task), once however often that task
runs, one after the other or at once, and, for a study whose worker was killed before anything terminated them, by
beat's reaper; an instance past its expiry goes too, and one of a study still running stays, as does one another
installation on the same AWS account launched."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from benchdash.celery import app
from benchdash.cloud import aws
from benchdash.cloud.ending import reap_instances
from benchdash.cloud.launch import bring_up, launch_once
from benchdash.cloud.models import CloudInstance, CloudStudy
from benchdash.cloud.tasks import terminate_cloud_study
from benchdash.studies.lifecycle import services
from benchdash.studies.models import Study, Trial
from tests.at_once import at_once
from tests.cloud.conftest import ELSEWHERE, REGION, make_template, queue_cloud_study
from tests.queue.support import paced_reference_scenario, register_build, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def states(ec2, cloud: CloudStudy) -> set[str]:
    ids = list(cloud.instances.values_list("instance_id", flat=True))
    return {item["State"]["Name"] for item in aws.describe(ec2, ids).values()}


def all_terminated(cloud: CloudStudy) -> bool:
    return not cloud.instances.filter(terminated_at__isnull=True).exists()


def launched(template, presets, build, *, expires_in=timedelta(hours=1)) -> CloudStudy:
    """A queued cloud study whose instances run on moto (no sshd needed: nothing connects to them here)."""
    cloud = queue_cloud_study(template, build, [presets["pgecons-reference"]], ELSEWHERE)
    CloudStudy.objects.filter(pk=cloud.pk).update(expires_at=timezone.now() + expires_in)
    cloud.refresh_from_db()
    assert launch_once(aws.ec2_client(REGION), cloud)
    CloudStudy.objects.filter(pk=cloud.pk).update(state=CloudStudy.State.READY)
    services.study_enqueue(study=cloud.study)
    return cloud


def test_the_instances_are_terminated_once_the_study_is_done(
    ec2, cloud_stand_in, celery_processes, presets, installed_build
):
    template = make_template(ec2, cloud_stand_in, client_instance_type="")
    cloud = queue_cloud_study(template, register_build(installed_build), [paced_reference_scenario()], ELSEWHERE)

    assert bring_up(cloud.pk) == CloudStudy.State.READY
    celery_processes.worker("cloud")  # its launch_cloud_study finds the instances launched already
    wait_for(lambda: Study.objects.get(pk=cloud.study_id).has_ended, 240, "the study to end")
    wait_for(lambda: all_terminated(cloud), 60, "its instances to be terminated")

    study = Study.objects.get(pk=cloud.study_id)
    assert study.status == Study.Status.DONE, list(study.trials.values_list("error", flat=True))
    assert study.trials.get().tps > 0
    assert states(ec2, cloud) <= {"shutting-down", "terminated"}
    assert CloudStudy.objects.get(pk=cloud.pk).state == CloudStudy.State.ENDED


@pytest.mark.parametrize("end", [Study.Status.FAILED, Study.Status.CANCELLED])
def test_the_instances_are_terminated_when_the_study_fails_or_is_cancelled(
    ec2, celery_processes, presets, installed_build, end
):
    cloud = launched(make_template(ec2), presets, register_build(installed_build))
    assert states(ec2, cloud) == {"running"}

    if end == Study.Status.CANCELLED:
        services.study_cancel(study=cloud.study)
    else:
        cloud.study.trials.update(status=Trial.Status.FAILED, error="pgbench failed")
        services.study_continue(study_id=cloud.study_id)
    celery_processes.worker("cloud")

    wait_for(lambda: all_terminated(cloud), 60, "its instances to be terminated")
    assert Study.objects.get(pk=cloud.study_id).status == end
    assert states(ec2, cloud) <= {"shutting-down", "terminated"}


def test_terminate_cloud_study_run_twice_terminates_the_instances_once(ec2, presets, installed_build):
    cloud = launched(make_template(ec2), presets, register_build(installed_build))
    services.study_cancel(study=cloud.study)
    instance_ids = sorted(cloud.instances.values_list("instance_id", flat=True))

    assert sorted(terminate_cloud_study(cloud.study_id)) == instance_ids
    terminated = dict(cloud.instances.values_list("instance_id", "terminated_at"))
    assert terminate_cloud_study(cloud.study_id) == []

    assert dict(cloud.instances.values_list("instance_id", "terminated_at")) == terminated
    assert states(ec2, cloud) <= {"shutting-down", "terminated"}


def test_terminate_cloud_study_sent_twice_and_run_at_once_terminates_each_instance_once(ec2, presets, installed_build):
    cloud = launched(make_template(ec2), presets, register_build(installed_build))
    services.study_cancel(study=cloud.study)

    runs = at_once(lambda: terminate_cloud_study(cloud.study_id), 3)

    instance_ids = sorted(cloud.instances.values_list("instance_id", flat=True))
    assert sorted(instance_id for terminated in runs for instance_id in terminated) == instance_ids
    assert CloudStudy.objects.get(pk=cloud.pk).state == CloudStudy.State.ENDED


def test_the_reaper_terminates_what_a_killed_worker_left_and_what_is_past_its_expiry_only(
    ec2, broker, presets, installed_build
):
    template, build = make_template(ec2), register_build(installed_build)
    orphaned, running, expired, elsewhere = (launched(template, presets, build) for _ in range(4))
    # The study failed, and its worker was killed before study_ended's task could terminate anything.
    Study.objects.filter(pk__in=[orphaned.study_id, elsewhere.study_id]).update(status=Study.Status.FAILED)
    # Another installation on the same AWS account: its study ids mean nothing in this store.
    elsewhere_ids = list(elsewhere.instances.values_list("instance_id", flat=True))
    ec2.create_tags(Resources=elsewhere_ids, Tags=[{"Key": aws.INSTALLATION_TAG, "Value": str(uuid.uuid4())}])
    expired_ids = expired.instances.values_list("instance_id", flat=True)
    ec2.create_tags(Resources=list(expired_ids), Tags=[{"Key": aws.EXPIRES_TAG, "Value": "2020-01-01T00:00:00+00:00"}])

    reaped = set(reap_instances())

    ids = {
        cloud.pk: set(cloud.instances.values_list("instance_id", flat=True)) for cloud in (orphaned, running, expired)
    }
    assert ids[orphaned.pk] | ids[expired.pk] <= reaped and not (ids[running.pk] | set(elsewhere_ids)) & reaped
    assert states(ec2, elsewhere) == {"running"}
    assert states(ec2, orphaned) <= {"shutting-down", "terminated"} and states(ec2, running) == {"running"}
    assert CloudInstance.objects.filter(instance_id__in=reaped, terminated_at__isnull=True).count() == 0
    assert CloudStudy.objects.get(pk=orphaned.pk).state == CloudStudy.State.ENDED
    assert "reap-cloud-instances" in app.conf.beat_schedule
