"""Raw outputs go to S3 when BENCHDASH_S3_BUCKET is set; moto's server stands in for AWS."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.urls import reverse

from benchdash.studies.models import Artifact
from tests.factories import TrialFactory
from tests.s3 import BUCKET


@pytest.fixture
def s3_storage(settings, moto_endpoint, s3_bucket):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": BUCKET, "endpoint_url": moto_endpoint, "region_name": "us-east-1"},
        },
    }
    storages._storages = {}  # the handler caches backends; settings changed under it
    yield s3_bucket
    storages._storages = {}


@pytest.mark.django_db
def test_it_stores_a_trial_artifact_in_the_s3_bucket(s3_storage):
    trial = TrialFactory()
    artifact = Artifact(trial=trial, kind=Artifact.Kind.PGBENCH_STDOUT, size=18)
    artifact.file.save("pgbench.out", ContentFile(b"tps = 123.456789\n"))

    stored = s3_storage.get_object(Bucket=BUCKET, Key=artifact.file.name)["Body"].read()
    assert stored == b"tps = 123.456789\n"
    assert artifact.file.name.startswith("artifacts/")
    with artifact.file.open("rb") as handle:
        assert handle.read() == b"tps = 123.456789\n"


@pytest.mark.django_db
def test_the_download_view_streams_an_artifact_from_the_s3_bucket(s3_storage, client):
    trial = TrialFactory()
    artifact = Artifact(trial=trial, kind=Artifact.Kind.PERF, size=22)
    artifact.file.save("trial-1-perf_folded.txt", ContentFile(b"postgres;main;exec 22\n"))

    response = client.get(reverse("studies:artifact", args=[artifact.pk]))

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"postgres;main;exec 22\n"
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert f"study-{trial.study_id}-trial-{trial.pk}-perf_folded.txt" in response["Content-Disposition"]
