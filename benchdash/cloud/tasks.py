"""The cloud's Celery tasks, on the default queue: launch a study's instances, terminate them when it ends, and
beat's reaper of what a crashed worker left running."""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from celery import shared_task
from django.conf import settings
from django.db import close_old_connections

from benchdash.celery import app
from benchdash.cloud.ending import reap_instances, terminate_study_instances
from benchdash.cloud.launch import bring_up


@shared_task(time_limit=settings.CLOUD_LAUNCH_TIME_LIMIT_S)
def launch_cloud_study(cloud_study_id: int) -> str:
    """Launch and ready a cloud study's instances, then queue the study (benchdash/cloud/launch.py)."""
    close_old_connections()
    return bring_up(cloud_study_id)


@shared_task(bind=True, max_retries=5)
def terminate_cloud_study(self: Any, study_id: int) -> list[str]:
    """Terminate an ended study's instances; EC2 errors are tried again, then left to the reaper."""
    close_old_connections()
    try:
        return terminate_study_instances(study_id)
    except (BotoCoreError, ClientError) as error:
        raise self.retry(exc=error, countdown=settings.CLOUD_POLL_S * 6) from error


@shared_task
def reap_cloud_instances() -> list[str]:
    """Beat: terminate every tagged instance whose study has ended or is gone, or that is past its expiry."""
    close_old_connections()
    return reap_instances()


app.add_periodic_task(settings.CLOUD_REAP_EVERY_S, reap_cloud_instances.s(), name="reap-cloud-instances")
