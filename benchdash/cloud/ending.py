"""A cloud study's instances go: when the study ends, fails or is cancelled (study_ended), when its launch fails,
and by beat's reaper, which terminates every instance of this installation whose study has ended (or is gone) or
that is past its expiry, so that a crashed worker leaves nothing running."""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from benchdash.cloud import aws
from benchdash.cloud.models import CloudInstance, CloudStudy, CloudTemplate
from benchdash.inventory.models import Host, Installation
from benchdash.store_clock import StoreNow
from benchdash.studies.models import Study

logger = logging.getLogger(__name__)


# The first key of the advisory lock under which a study's instances are terminated (the second is the study's id):
# any constant no other lock of the store uses.
TERMINATE_LOCK = 4_300_040


def terminate_study_instances(study_id: int) -> list[str]:
    """Terminate the instances of the study's cloud study that still run; returns their ids. Once: two calls at once
    (terminate_cloud_study sent twice, a launch that failed as the study ended) take turns, and the second finds none
    left to terminate."""
    cloud = CloudStudy.objects.select_related("template").filter(study_id=study_id).first()
    if cloud is None:
        return []
    with _in_turn(study_id):
        live = cloud.instances.filter(terminated_at__isnull=True).exclude(instance_id="")
        instance_ids = list(live.values_list("instance_id", flat=True))
        aws.terminate(aws.ec2_client(cloud.template.region), instance_ids)
        mark_terminated(instance_ids)
    CloudStudy.objects.filter(pk=cloud.pk, state__in=[CloudStudy.State.LAUNCHING, CloudStudy.State.READY]).update(
        state=CloudStudy.State.ENDED
    )
    return instance_ids


@contextmanager
def _in_turn(study_id: int) -> Iterator[None]:
    """A session-level advisory lock, not a transaction's: no transaction stays open across EC2's call, and a worker
    that dies holding it lets it go with its connection."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s::int, %s::int)", [TERMINATE_LOCK, study_id])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s::int, %s::int)", [TERMINATE_LOCK, study_id])


def launch_failed(cloud: CloudStudy, error: str) -> None:
    """Terminate what was launched, and fail the study (a draft: nothing of it was queued) with the reason."""
    with transaction.atomic():
        launching = CloudStudy.objects.filter(pk=cloud.pk, state=CloudStudy.State.LAUNCHING)
        launching.update(state=CloudStudy.State.FAILED, error=error)
        Study.objects.filter(pk=cloud.study_id, status=Study.Status.DRAFT).update(
            status=Study.Status.FAILED, finished_at=StoreNow(), notes=f"The cloud instances did not come up: {error}"
        )
    terminate_study_instances(cloud.study_id)


def mark_terminated(instance_ids: list[str]) -> None:
    """Note the instances as gone, and take their hosts' addresses away: nothing reaches a dead address again,
    and the work-dir sweep has nothing to look at there."""
    if not instance_ids:
        return
    gone = CloudInstance.objects.filter(instance_id__in=instance_ids)
    gone.filter(terminated_at__isnull=True).update(terminated_at=timezone.now())
    Host.objects.filter(pk__in=gone.values("host_id")).update(
        address="", host_key="", work_dir_usage={}, work_dir_measured_at=timezone.now()
    )


def reap_instances() -> list[str]:
    """Beat: in each region a template names, terminate this installation's instances that may go; returns their
    ids. Another installation's (sharing the AWS account) are left to it: their studies are not in this store."""
    reaped: list[str] = []
    installation = Installation.current_token()
    for region in sorted(set(CloudTemplate.objects.values_list("region", flat=True))):
        ec2 = aws.ec2_client(region)
        mine = aws.tagged_instances(ec2, installation)
        doomed = [item["InstanceId"] for item in mine if may_go(item, timezone.now())]
        aws.terminate(ec2, doomed)
        mark_terminated(doomed)
        reaped += doomed
    if reaped:
        logger.warning("terminated cloud instances left running: %s", ", ".join(reaped))
        _end_clouds_without_instances()
    return reaped


def may_go(instance: dict[str, Any], now: datetime) -> bool:
    """Past its expiry, or its study has ended or is not in the store (an instance with unreadable tags too)."""
    expires_at = parse_datetime(aws.tag_value(instance, aws.EXPIRES_TAG) or "")
    study_id = aws.tag_value(instance, aws.STUDY_TAG) or ""
    if expires_at is None or expires_at <= now or not study_id.isdigit():
        return True
    study = Study.objects.filter(pk=int(study_id)).only("status").first()
    return study is None or study.has_ended


def _end_clouds_without_instances() -> None:
    live = CloudInstance.objects.filter(terminated_at__isnull=True)
    CloudStudy.objects.filter(state__in=[CloudStudy.State.LAUNCHING, CloudStudy.State.READY]).exclude(
        instances__in=live
    ).update(state=CloudStudy.State.ENDED)
