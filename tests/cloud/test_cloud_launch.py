"""A study on a cloud template: its instances are launched on moto's EC2 with the template's parameters and the
study's tags, told to end themselves at the expiry; the local sshd stands in for them, its host key pinned from
the console output, facts read and builds installed before the study is queued. A console that shows another
key than the sshd's fails the launch: nothing is trusted on first use, and what was launched is terminated. A study
cancelled from its page while its instances boot is never queued, and what was launched is terminated at once.
EC2 is called with no transaction open, and a launch retried after its replies were lost asks again with the same
ClientToken and parameters, which EC2 answers with the instances it made the first time (moto ignores the token:
what is sent is checked)."""

import base64
import threading
import time
from functools import partial

import pytest
from django.db import connection
from django.urls import reverse

from benchdash.cloud import aws
from benchdash.cloud.launch import bring_up, launch_once
from benchdash.cloud.models import CloudStudy
from benchdash.inventory.models import Installation
from benchdash.studies.models import Study
from tests.cloud import stand_in
from tests.cloud.conftest import ELSEWHERE, make_template, queue_cloud_study
from tests.queue.support import register_build, wait_for
from tests.sshd import generate_key

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_cloud_study_launches_tagged_instances_pins_the_console_key_and_is_queued(
    ec2, cloud_stand_in, broker, presets, installed_build
):
    template = make_template(ec2, cloud_stand_in)
    build = register_build(installed_build)
    cloud = queue_cloud_study(template, build, [presets["pgecons-reference"]], cloud_stand_in)

    assert bring_up(cloud.pk) == CloudStudy.State.READY

    instances = {item.role: item for item in cloud.instances.select_related("host")}
    described = aws.describe(ec2, [item.instance_id for item in instances.values()])
    db = described[instances["db"].instance_id]
    assert (db["ImageId"], db["InstanceType"], db["SubnetId"], db["KeyName"]) == (
        template.image_id,
        "m5a.8xlarge",
        template.subnet_id,
        "benchdash-test",
    )
    assert [group["GroupId"] for group in db["SecurityGroups"]] == [template.security_group_id]
    assert described[instances["client"].instance_id]["InstanceType"] == "c5.2xlarge"
    tags = {tag["Key"]: tag["Value"] for tag in db["Tags"]}
    assert tags[aws.STUDY_TAG] == str(cloud.study_id) and tags[aws.ROLE_TAG] == "db"
    assert tags[aws.INSTALLATION_TAG] == Installation.current_token()
    cloud.refresh_from_db()
    assert tags[aws.EXPIRES_TAG] == cloud.expires_at.isoformat()
    attribute = partial(ec2.describe_instance_attribute, InstanceId=db["InstanceId"])
    shutdown = attribute(Attribute="instanceInitiatedShutdownBehavior")["InstanceInitiatedShutdownBehavior"]
    assert shutdown["Value"] == "terminate"
    user_data = base64.b64decode(attribute(Attribute="userData")["UserData"]["Value"]).decode()
    assert "shutdown -h +" in user_data and cloud_stand_in.work_dir in user_data
    volume_id = db["BlockDeviceMappings"][0]["Ebs"]["VolumeId"]
    volume = ec2.describe_volumes(VolumeIds=[volume_id])["Volumes"][0]
    assert (volume["Size"], volume["VolumeType"], volume["Encrypted"]) == (200, "gp3", True)

    study = Study.objects.select_related("db_host", "client_host").get(pk=cloud.study_id)
    assert study.status == Study.Status.QUEUED
    assert study.db_host == instances["db"].host and study.client_host == instances["client"].host
    for host in (study.db_host, study.client_host):
        assert (host.address, host.port, host.host_key) == ("127.0.0.1", cloud_stand_in.port, cloud_stand_in.host_key)
        assert host.facts["cpu_threads"] >= 1


def test_a_console_key_other_than_the_one_the_instance_offers_fails_the_launch_and_terminates_it(
    ec2, cloud_stand_in, broker, presets, installed_build, tmp_path
):
    stand_in.STAND_IN["console_key"] = generate_key(tmp_path / "other_key")
    template = make_template(ec2, cloud_stand_in, client_instance_type="")
    cloud = queue_cloud_study(template, register_build(installed_build), [presets["pgecons-reference"]], cloud_stand_in)

    assert bring_up(cloud.pk) == CloudStudy.State.FAILED

    cloud.refresh_from_db()
    instance = cloud.instances.get()
    assert "host key" in cloud.error.lower() or "refus" in cloud.error.lower(), cloud.error
    assert Study.objects.get(pk=cloud.study_id).status == Study.Status.FAILED
    assert instance.terminated_at is not None and instance.host.host_key == ""
    state = aws.describe(ec2, [instance.instance_id])[instance.instance_id]["State"]["Name"]
    assert state in ("shutting-down", "terminated")


def test_a_study_cancelled_while_its_instances_boot_is_never_queued_and_they_are_terminated_at_once(
    client, member, ec2, cloud_stand_in, broker, presets, installed_build, settings
):
    settings.CLOUD_BOOT_WAIT_S = 120
    stand_in.STAND_IN["console_silent"] = True  # cloud-init has not printed the host keys yet: the launch waits
    template = make_template(ec2, cloud_stand_in, client_instance_type="")
    cloud = queue_cloud_study(template, register_build(installed_build), [presets["pgecons-reference"]], cloud_stand_in)
    page = reverse("studies:detail", args=[cloud.study_id])
    assert 'data-live="cancel" ' in client.get(page).content.decode()  # the draft's cancel button is not hidden

    result: dict[str, str] = {}

    def launch() -> None:
        try:
            result["state"] = bring_up(cloud.pk)
        finally:
            connection.close()

    launching = threading.Thread(target=launch)
    launching.start()
    wait_for(lambda: cloud.instances.exclude(instance_id="").exists(), 60, "the instance to be launched")
    response = client.post(reverse("studies:cancel", args=[cloud.study_id]), follow=True)
    cancelled_at = time.monotonic()
    launching.join(timeout=60)

    assert not launching.is_alive() and time.monotonic() - cancelled_at < 10
    assert "Study cancelled" in response.content.decode()
    assert result["state"] == CloudStudy.State.ENDED
    assert Study.objects.get(pk=cloud.study_id).status == Study.Status.CANCELLED
    assert not Study.objects.get(pk=cloud.study_id).trials.exclude(status="cancelled").exists()
    instance = cloud.instances.get()
    assert instance.terminated_at is not None and instance.host.host_key == ""
    state = aws.describe(ec2, [instance.instance_id])[instance.instance_id]["State"]["Name"]
    assert state in ("shutting-down", "terminated")


def test_a_retried_launch_asks_ec2_with_the_same_client_tokens_and_parameters_and_no_transaction_open(
    ec2, presets, installed_build
):
    template = make_template(ec2, client_instance_type="c5.2xlarge")
    cloud = queue_cloud_study(template, register_build(installed_build), [presets["pgecons-reference"]], ELSEWHERE)
    sent: list[dict] = []

    def note(params, **_):
        sent.append({**params, "in_transaction": connection.in_atomic_block})

    ec2.meta.events.register("provide-client-params.ec2.RunInstances", note)

    assert launch_once(ec2, cloud)
    cloud.instances.update(instance_id="")  # the replies were lost before they were noted
    assert launch_once(ec2, cloud)
    assert not launch_once(ec2, cloud)  # noted this time: a third delivery has nothing to do

    token = f"{Installation.current_token()}-{cloud.pk}"
    assert [(params["ClientToken"], params["in_transaction"]) for params in sent] == [
        (f"{token}-client", False),
        (f"{token}-db", False),
    ] * 2
    assert sent[:2] == sent[2:]
