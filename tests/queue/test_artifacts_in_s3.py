"""S3 as configured in production: a real worker and a real web server (gunicorn, DEBUG off), both given only
BENCHDASH_S3_BUCKET and BENCHDASH_S3_ENDPOINT_URL (and the credentials) in their environment, so settings.py picks the
S3 storage. A real trial's raw files land in the bucket, none on the worker's disk, and come back through the app's
access-checked download view; never from /media/."""

import time
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from benchdash.studies.models import Artifact, Study, Trial
from tests.queue.support import form_data, paced_reference_scenario, register_build, register_host, wait_for
from tests.s3 import BUCKET, S3_CREDENTIALS

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_real_trial_s_raw_files_go_to_the_bucket_and_download_through_the_app(
    client, member, presets, celery_processes, gunicorn, local_target, installed_build, moto_endpoint, s3_bucket
):
    started = time.time()
    s3 = {"BENCHDASH_S3_BUCKET": BUCKET, "BENCHDASH_S3_ENDPOINT_URL": moto_endpoint, **S3_CREDENTIALS}
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(
        host=host,
        builds=[build],
        baseline=build,
        scenarios=[paced_reference_scenario()],
        clients="1",
        collect_wait_events="on",
    )
    celery_processes.env = s3
    celery_processes.worker("s3")
    web = gunicorn(BENCHDASH_PUBLIC_READ="false", SECRET_KEY=settings.SECRET_KEY, **s3)

    client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 180, "the study to finish")

    trial = Trial.objects.get(study=study)
    assert trial.status == Trial.Status.SUCCEEDED, trial.error
    artifacts = list(Artifact.objects.filter(trial=trial).order_by("kind"))
    assert {"pgbench_stdout", "wait_events"} <= {artifact.kind for artifact in artifacts}
    in_bucket = {item["Key"] for item in s3_bucket.list_objects_v2(Bucket=BUCKET)["Contents"]}
    assert in_bucket == {artifact.file.name for artifact in artifacts}
    # None written to the worker's disk by this test (an earlier test's trial of the same id may have left one).
    local = [Path(settings.MEDIA_ROOT) / artifact.file.name for artifact in artifacts]
    assert not any(path.exists() and path.stat().st_mtime >= started for path in local)

    member_cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    for artifact in artifacts:
        stored = s3_bucket.get_object(Bucket=BUCKET, Key=artifact.file.name)["Body"].read()
        download = reverse("studies:artifact", args=[artifact.pk])
        as_member = web.get(download, Cookie=member_cookie)
        anonymous = web.get(download)
        from_media = web.get(f"/media/{artifact.file.name}", Cookie=member_cookie)

        assert as_member.status == 200 and as_member.body == stored, artifact.kind
        assert len(stored) == artifact.size > 0
        assert as_member.headers["content-disposition"] == f'attachment; filename="{artifact.download_name}"'
        assert anonymous.status == 302 and stored not in anonymous.body
        assert from_media.status == 404
    pgbench_output = next(artifact for artifact in artifacts if artifact.kind == "pgbench_stdout")
    assert b"tps = " in web.get(reverse("studies:artifact", args=[pgbench_output.pk]), Cookie=member_cookie).body
