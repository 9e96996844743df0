"""Saving a study on a cloud template, as the page queues it: the study (a draft) on fresh host rows, its cloud
study and the instances to launch; the launch (benchdash/cloud/launch.py) is sent once this commits."""

import secrets
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from benchdash.cloud.budget import estimate
from benchdash.cloud.models import CloudInstance, CloudStudy, CloudTemplate
from benchdash.cloud.tasks import launch_cloud_study
from benchdash.inventory.models import Host
from benchdash.studies.design import StudyDesign
from benchdash.studies.lifecycle import services


@transaction.atomic
def cloud_study_create(
    *, template: CloudTemplate, design: StudyDesign, study_seconds: float, created_by: Any = None
) -> CloudStudy:
    """Save the study (draft) on fresh host rows, one per role of the template, with its cloud study and its
    instances to launch; launch_cloud_study is sent once this commits."""
    hosts = {role: _new_host(template, role) for role in template.roles()}
    on_hosts = design.replace(db_host=hosts[CloudInstance.Role.DB], client_host=hosts.get(CloudInstance.Role.CLIENT))
    study = services.study_create(design=on_hosts, created_by=created_by)
    cost = estimate(template, study_seconds)
    expires_at = timezone.now() + timedelta(hours=float(cost.expiry_hours))
    cloud = CloudStudy.objects.create(study=study, template=template, expires_at=expires_at, cost_bound=cost.cost_bound)
    for role, (instance_type, price) in template.roles().items():
        CloudInstance.objects.create(
            cloud_study=cloud, role=role, host=hosts[role], instance_type=instance_type, price_per_hour=price
        )
    transaction.on_commit(lambda: launch_cloud_study.apply_async((cloud.pk,), ignore_result=True))
    return cloud


def _new_host(template: CloudTemplate, role: str) -> Host:
    """A host row for an instance to come: its address and pinned key are filled in once it is up. Its instance
    type and image make its host kind, whose noise history it shares (inventory/host_kind.py)."""
    return Host.objects.create(
        name=f"cloud-{template.name}-{secrets.token_hex(3)}-{role}",
        cloud_instance_type=template.roles()[role][0],
        cloud_image=template.image_id,
        username=template.ssh_user,
        key_path=template.key_path,
        work_dir=template.work_dir,
        notes=f"EC2 {role} instance of template {template.name}",
    )
