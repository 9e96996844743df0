"""moto's EC2 (the S3 fixture's server, tests/s3.py), a cloud host template in it, and the local sshd standing in
for its instances; the queue tests' Redis and Celery fixtures."""

from decimal import Decimal

import boto3
import pytest

from benchdash.cloud.creation import cloud_study_create
from benchdash.cloud.models import CloudStudy, CloudTemplate
from benchdash.studies.forms import StudyForm
from tests.cloud import stand_in
from tests.queue.conftest import *  # noqa: F403 (the queue tests' fixtures, with what they need in turn)
from tests.queue.support import form_data, register_host
from tests.s3 import S3_CREDENTIALS
from workers.spec import HostSpec

REGION = "us-east-1"
# The form's placeholder DB host where no sshd is needed: nothing connects to the instances.
ELSEWHERE = HostSpec(name="elsewhere", address="192.0.2.1")


@pytest.fixture
def ec2(moto_endpoint, monkeypatch):
    """A boto3 EC2 client on moto; benchdash's own clients reach moto too (AWS_ENDPOINT_URL)."""
    for name, value in {**S3_CREDENTIALS, "AWS_ENDPOINT_URL": moto_endpoint}.items():
        monkeypatch.setenv(name, value)
    return boto3.client("ec2", region_name=REGION)


@pytest.fixture
def cloud_stand_in(ssh_target, settings):
    """Every instance's sshd is the local ssh_target, and its console prints that sshd's host key."""
    settings.CLOUD_SSH_ENDPOINT = "tests.cloud.stand_in.sshd_endpoint"
    settings.CLOUD_CONSOLE_OUTPUT = "tests.cloud.stand_in.sshd_console_output"
    settings.CLOUD_POLL_S = 0.1
    settings.CLOUD_BOOT_WAIT_S = 20
    stand_in.STAND_IN.update(sshd=ssh_target)
    yield ssh_target
    stand_in.STAND_IN.clear()


def make_template(ec2=None, ssh_target=None, **fields) -> CloudTemplate:
    """A template on moto's default VPC and first image (made-up ids without ec2), with the ssh_target's user and
    key when given. Prices: an m5a.8xlarge DB host at 1.376 USD an hour, a c5.2xlarge client at 0.34."""
    values = {
        "name": "consortium",
        "region": REGION,
        **(moto_ids(ec2) if ec2 else MADE_UP_IDS),
        "key_name": "benchdash-test",
        "key_path": ssh_target.key_path if ssh_target else "/nonexistent/key",
        "ssh_user": ssh_target.username if ssh_target else "admin",
        "work_dir": ssh_target.work_dir if ssh_target else "/var/lib/benchdash",
        "volume_type": "gp3",
        "volume_size_gib": 200,
        "db_instance_type": "m5a.8xlarge",
        "db_price_per_hour": Decimal("1.376"),
        "client_instance_type": "c5.2xlarge",
        "client_price_per_hour": Decimal("0.34"),
        **fields,
    }
    template = CloudTemplate(**values)
    template.full_clean()
    template.save()
    return template


MADE_UP_IDS = {"image_id": "ami-0123456789abcdef0", "subnet_id": "subnet-0123abcd", "security_group_id": "sg-0123abcd"}


def moto_ids(ec2) -> dict[str, str]:
    """moto's first image, its default VPC's first subnet and default security group; the key pair made once."""
    if "benchdash-test" not in {pair["KeyName"] for pair in ec2.describe_key_pairs()["KeyPairs"]}:
        ec2.create_key_pair(KeyName="benchdash-test")
    return {
        "image_id": ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"],
        "subnet_id": ec2.describe_subnets()["Subnets"][0]["SubnetId"],
        "security_group_id": ec2.describe_security_groups(GroupNames=["default"])["SecurityGroups"][0]["GroupId"],
    }


def queue_cloud_study(template, build, scenarios, placeholder: HostSpec) -> CloudStudy:
    """The cloud study the page would queue: a one-trial study (the form's DB host is only a placeholder, the
    cloud study's own hosts replace it)."""
    host = register_host(placeholder)
    data = form_data(host=host, builds=[build], baseline=build, scenarios=scenarios, clients="1")
    form = StudyForm(data)
    assert form.is_valid(), form.errors
    return cloud_study_create(template=template, design=form.design(), study_seconds=form.estimated_seconds())
