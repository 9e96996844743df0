"""Raw outputs go to S3 when BENCHDASH_S3_BUCKET is set; moto's server stands in for AWS."""

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.urls import reverse

from benchdash.studies.models import Artifact
from tests.factories import TrialFactory
from tests.sshd import free_port, wait_for_port

BUCKET = "benchdash-artifacts"


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    port = free_port()
    server = Path(sys.executable).with_name("moto_server")
    process = subprocess.Popen(
        [str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_for_port(port, process, timeout=20)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def s3_storage(settings, moto_endpoint, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": BUCKET, "endpoint_url": moto_endpoint, "region_name": "us-east-1"},
        },
    }
    storages._storages = {}  # the handler caches backends; settings changed under it
    yield client
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
