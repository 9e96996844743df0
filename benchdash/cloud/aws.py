"""EC2 through boto3: launch a study's instance, find and terminate them by their tags, read what they print.

Credentials and the endpoint come from boto3's usual sources (the environment, ~/.aws, an instance role);
AWS_ENDPOINT_URL points it at another endpoint (the tests' moto server).

boto3 is imported inside ec2_client: it takes a sixth of a second to import, which every worker, beat and command
would pay at start (the tasks import this module), used or not."""

import shlex
from collections.abc import Iterable
from datetime import datetime
from typing import Any

STUDY_TAG, ROLE_TAG, EXPIRES_TAG = "benchdash:study", "benchdash:role", "benchdash:expires"
INSTALLATION_TAG = "benchdash:installation"
LIVE_STATES = ["pending", "running", "stopping", "stopped"]


def ec2_client(region: str) -> Any:
    import boto3

    return boto3.client("ec2", region_name=region)


def instance_tags(*, installation: str, study_id: int, role: str, expires_at: datetime) -> list[dict[str, str]]:
    """The tags that let beat find an instance and tell whether it may go: the installation that made it, its
    study, its role, its expiry."""
    tags = {INSTALLATION_TAG: installation, STUDY_TAG: str(study_id), ROLE_TAG: role}
    tags |= {EXPIRES_TAG: expires_at.isoformat(), "Name": f"benchdash-{role}"}
    return [{"Key": key, "Value": value} for key, value in tags.items()]


def boot_script(*, minutes_left: int, ssh_user: str, work_dir: str) -> str:
    """User data: power off (= terminate, by the shutdown behaviour) at the expiry, and make the work dir."""
    user, directory = shlex.quote(ssh_user), shlex.quote(work_dir)
    return f"#!/bin/sh\nshutdown -h +{max(minutes_left, 1)}\ninstall -d -m 0700 -o {user} -g {user} {directory}\n"


def client_token(*, installation: str, cloud_study_id: int, role: str) -> str:
    """The RunInstances idempotency token of one role of one cloud study (at most 64 ASCII characters): EC2 answers
    a second request with the same token and parameters with the instance the first one made."""
    return f"{installation}-{cloud_study_id}-{role}"


def run_instance(
    ec2: Any, template: Any, *, instance_type: str, tags: list[dict[str, str]], user_data: str, client_token: str
) -> str:
    """Launch one instance of the template, once per client_token; returns its id."""
    root_device = ec2.describe_images(ImageIds=[template.image_id])["Images"][0]["RootDeviceName"]
    volume = {"VolumeSize": template.volume_size_gib, "VolumeType": template.volume_type, "DeleteOnTermination": True}
    if template.volume_iops:
        volume["Iops"] = template.volume_iops
    reply = ec2.run_instances(
        ClientToken=client_token,
        ImageId=template.image_id,
        InstanceType=instance_type,
        MinCount=1,
        MaxCount=1,
        KeyName=template.key_name,
        SubnetId=template.subnet_id,
        SecurityGroupIds=[template.security_group_id],
        BlockDeviceMappings=[{"DeviceName": root_device, "Ebs": {**volume, "Encrypted": True}}],
        InstanceInitiatedShutdownBehavior="terminate",
        UserData=user_data,
        MetadataOptions={"HttpTokens": "required"},
        TagSpecifications=[{"ResourceType": kind, "Tags": tags} for kind in ("instance", "volume")],
    )
    return str(reply["Instances"][0]["InstanceId"])


def describe(ec2: Any, instance_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """instance id -> what EC2 says of it."""
    reply = ec2.describe_instances(InstanceIds=list(instance_ids))
    return {item["InstanceId"]: item for group in reply["Reservations"] for item in group["Instances"]}


def tagged_instances(ec2: Any, installation: str) -> list[dict[str, Any]]:
    """Every live instance that this installation made (it carries its tag), in the client's region."""
    mine = {"Name": f"tag:{INSTALLATION_TAG}", "Values": [installation]}
    filters = [mine, {"Name": "instance-state-name", "Values": LIVE_STATES}]
    pages = ec2.get_paginator("describe_instances").paginate(Filters=filters)
    return [item for page in pages for group in page["Reservations"] for item in group["Instances"]]


def tag_value(instance: dict[str, Any], key: str) -> str | None:
    return next((tag["Value"] for tag in instance.get("Tags", []) if tag["Key"] == key), None)


def terminate(ec2: Any, instance_ids: list[str]) -> None:
    if instance_ids:
        ec2.terminate_instances(InstanceIds=instance_ids)


def console_output(ec2: Any, instance_id: str) -> str:
    """What the instance printed on its console so far (cloud-init's host keys among it); empty until it has."""
    return str(ec2.get_console_output(InstanceId=instance_id, Latest=True).get("Output") or "")  # botocore decodes it


def ssh_endpoint(instance: dict[str, Any], public: bool) -> tuple[str, int]:
    """Where a worker reaches the instance's sshd: its private address (or public one), port 22."""
    address = instance.get("PublicIpAddress") if public else instance.get("PrivateIpAddress")
    return str(address or ""), 22
