"""A cloud study from its launch to its first trial (benchdash/cloud/creation.py saved it): its instances are made, each
instance's sshd is awaited and its host key pinned from the console (never from the connection), its facts read
and the study's builds installed; then the study is queued and runs as on any host.

Where a worker reaches an instance (CLOUD_SSH_ENDPOINT) and where its console output is read from
(CLOUD_CONSOLE_OUTPUT) are settings naming a function: EC2's by default; the tests name their stand-ins."""

import logging
import socket
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.utils import timezone
from django.utils.module_loading import import_string

from benchdash.cloud import aws
from benchdash.cloud.ending import launch_failed, terminate_study_instances
from benchdash.cloud.host_keys import console_host_key
from benchdash.cloud.models import CloudInstance, CloudStudy
from benchdash.inventory.models import Host, Installation
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.specs import build_spec, host_spec
from workers.builds import install_build
from workers.facts import collect_host_facts
from workers.transport import connect

logger = logging.getLogger(__name__)


class LaunchError(Exception):
    """An instance did not come up as it should (not running, no sshd, no host key) in time."""


class LaunchCancelled(Exception):
    """The study was cancelled while its instances were being made ready."""


def bring_up(cloud_study_id: int) -> str:
    """Launch the cloud study's instances and ready them, then queue the study; on any failure terminate what
    was launched and fail the study; once the study is cancelled, terminate what was launched and stop.
    Returns the cloud study's state."""
    cloud = CloudStudy.objects.select_related("template", "study").get(pk=cloud_study_id)
    ec2 = aws.ec2_client(cloud.template.region)
    try:
        if not launch_once(ec2, cloud):
            return _state(cloud)
        ready_instances(ec2, cloud)
    except LaunchCancelled:
        terminate_study_instances(cloud.study_id)
        return _state(cloud)
    except Exception as error:
        logger.exception("cloud study %s: the launch failed", cloud.pk)
        launch_failed(cloud, f"{type(error).__name__}: {error}")
        return _state(cloud)
    CloudStudy.objects.filter(pk=cloud.pk, state=CloudStudy.State.LAUNCHING).update(state=CloudStudy.State.READY)
    services.study_enqueue(study=cloud.study)  # a study cancelled meanwhile stays cancelled: only a draft is queued
    return _state(cloud)


def _state(cloud: CloudStudy) -> str:
    return str(CloudStudy.objects.values_list("state", flat=True).get(pk=cloud.pk))


def launch_once(ec2: Any, cloud: CloudStudy) -> bool:
    """Launch the instances unless an earlier delivery of the task did: False when nothing is left to do.
    The intent is committed before EC2 is called, so no row stays locked across its calls; each instance's
    ClientToken names the cloud study and the role, so a launch retried after a lost reply gets the same instance
    back from EC2 instead of a second one."""
    asked_at = _launch_claimed(cloud)
    if asked_at is None:
        return False
    launch_instances(ec2, cloud, asked_at)
    return True


def _launch_claimed(cloud: CloudStudy) -> datetime | None:
    """Under the cloud study's row lock: when the launch was first asked for, None when no launch is due. The budget
    counts from then, and so does the boot script's expiry, so that a retry asks EC2 for the same thing."""
    with transaction.atomic():
        locked = CloudStudy.objects.select_for_update().get(pk=cloud.pk)
        if locked.state != CloudStudy.State.LAUNCHING or locked.instances.exclude(instance_id="").exists():
            return None
        locked.instances.filter(launched_at__isnull=True).update(launched_at=timezone.now())
        return locked.instances.aggregate(asked_at=Min("launched_at"))["asked_at"]


def launch_instances(ec2: Any, cloud: CloudStudy, asked_at: datetime) -> None:
    """Run one instance per role, tagged with the study and the expiry, told to end itself at the expiry."""
    template = cloud.template
    minutes_left = int((cloud.expires_at - asked_at).total_seconds() // 60)
    user_data = aws.boot_script(minutes_left=minutes_left, ssh_user=template.ssh_user, work_dir=template.work_dir)
    installation = Installation.current_token()
    for instance in cloud.instances.filter(instance_id=""):
        tags = aws.instance_tags(
            installation=installation, study_id=cloud.study_id, role=instance.role, expires_at=cloud.expires_at
        )
        token = aws.client_token(installation=installation, cloud_study_id=cloud.pk, role=instance.role)
        instance.instance_id = aws.run_instance(
            ec2, template, instance_type=instance.instance_type, tags=tags, user_data=user_data, client_token=token
        )
        instance.save(update_fields=["instance_id"])


def ready_instances(ec2: Any, cloud: CloudStudy) -> None:
    """Wait until every instance runs, then make each a pinned, known host with the study's builds."""
    instances = list(cloud.instances.select_related("host"))
    described = wait_until(partial(_all_running, ec2, instances), "the instances to run", study_id=cloud.study_id)
    for instance in instances:
        public = cloud.template.public_address
        pin_host(ec2, instance, described[instance.instance_id], public=public, study_id=cloud.study_id)
        stop_if_cancelled(cloud.study_id, "the builds to be installed")
        prepare_host(Host.objects.get(pk=instance.host_id), cloud)


def pin_host(ec2: Any, instance: CloudInstance, described: dict[str, Any], *, public: bool, study_id: int) -> None:
    """Once its sshd answers, give the instance's host row its address and the host key its console printed."""
    address, port = import_string(settings.CLOUD_SSH_ENDPOINT)(described, public)
    wait_until(partial(_port_open, address, port), f"sshd on {address}:{port}", study_id=study_id)
    console_key = partial(_console_key, ec2, instance.instance_id)
    host_key = wait_until(console_key, "the console's host keys", study_id=study_id)
    Host.objects.filter(pk=instance.host_id).update(address=address, port=port, host_key=host_key)


def prepare_host(host: Host, cloud: CloudStudy) -> None:
    """Read the host's facts and install the study's builds on it, as its first trial would."""
    with connect(host_spec(host)) as transport:
        facts = collect_host_facts(transport, host.work_dir)
        for build in cloud.study.builds.all():
            install_build(transport, build_spec(build))
    Host.objects.filter(pk=host.pk).update(facts=facts, facts_updated_at=timezone.now())


def _all_running(ec2: Any, instances: list[CloudInstance]) -> dict[str, dict[str, Any]] | None:
    described = aws.describe(ec2, [instance.instance_id for instance in instances])
    states = {item["State"]["Name"] for item in described.values()}
    if states - {"pending", "running"}:
        raise LaunchError(f"an instance is {', '.join(sorted(states))} before it ran")
    return described if states == {"running"} and len(described) == len(instances) else None


def _port_open(address: str, port: int) -> bool:
    try:
        with socket.create_connection((address, port), timeout=5):
            return True
    except OSError:
        return False


def _console_key(ec2: Any, instance_id: str) -> str | None:
    return console_host_key(import_string(settings.CLOUD_CONSOLE_OUTPUT)(ec2, instance_id))


def stop_if_cancelled(study_id: int, waiting_for: str) -> None:
    """LaunchCancelled once the study is cancelled, naming what the launch was waiting for."""
    if services.study_is_cancelled(study_id=study_id):
        raise LaunchCancelled(waiting_for)


def wait_until(look: Callable[[], Any], what: str, *, study_id: int) -> Any:
    """look() every CLOUD_POLL_S seconds until it returns something true; LaunchError after CLOUD_BOOT_WAIT_S,
    LaunchCancelled as soon as the study is cancelled."""
    timeout_s = settings.CLOUD_BOOT_WAIT_S
    deadline = time.monotonic() + timeout_s
    while not (value := look()):
        stop_if_cancelled(study_id, what)
        if time.monotonic() > deadline:
            raise LaunchError(f"gave up waiting for {what} after {timeout_s} s")
        time.sleep(settings.CLOUD_POLL_S)
    return value
