"""Raw trial files through studies:artifact: read access checked, streamed from the storage with a file name and
a content type, with DEBUG off and from S3; no page links to /media/."""

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from benchdash.studies.models import Artifact, Trial
from tests.factories import TrialFactory

pytestmark = pytest.mark.django_db


def stored(trial: Trial, kind: str, name: str, data: bytes) -> Artifact:
    artifact = Artifact(trial=trial, kind=kind, size=len(data))
    artifact.file.save(name, ContentFile(data))
    return artifact


@pytest.fixture
def trial():
    return TrialFactory(status=Trial.Status.SUCCEEDED, tps=100.0)


def download(client, artifact: Artifact):
    return client.get(reverse("studies:artifact", args=[artifact.pk]))


def test_it_streams_the_file_with_its_name_and_type_with_debug_off(client, settings, trial):
    settings.DEBUG = False
    artifact = stored(trial, "wait_events", "trial-9-wait_events.json", b'{"samples": 3}')

    response = download(client, artifact)

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b'{"samples": 3}'
    assert response["Content-Type"] == "application/json"
    expected = f'attachment; filename="study-{trial.study_id}-trial-{trial.pk}-wait_events.json"'
    assert response["Content-Disposition"] == expected


def test_sar_s_binary_file_comes_as_octet_stream_and_text_as_utf8(client, trial):
    sar = stored(trial, "sar", "trial-9-sar.sa", b"\x96\xd5\x71\x21binary")
    log = stored(trial, "server_log", "trial-9-server_log.txt", "ログ\n".encode())

    assert download(client, sar)["Content-Type"] == "application/octet-stream"
    assert download(client, log)["Content-Type"] == "text/plain; charset=utf-8"


def test_an_anonymous_visitor_is_sent_to_login_when_reading_is_not_public(client, settings, trial):
    settings.PUBLIC_READ = False
    artifact = stored(trial, "pgbench_stdout", "trial-9-pgbench_stdout.txt", b"tps = 1\n")

    response = download(client, artifact)

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_member_reads_it_when_reading_is_not_public(client, settings, django_user_model, trial):
    settings.PUBLIC_READ = False
    client.force_login(django_user_model.objects.create_user("member", password="x"))
    artifact = stored(trial, "pgbench_stdout", "trial-9-pgbench_stdout.txt", b"tps = 1\n")

    assert b"".join(download(client, artifact).streaming_content) == b"tps = 1\n"


def test_a_file_gone_from_the_storage_is_a_404(client, trial):
    artifact = stored(trial, "pgbench_stdout", "trial-9-pgbench_stdout.txt", b"tps = 1\n")
    artifact.file.storage.delete(artifact.file.name)

    assert download(client, artifact).status_code == 404


def test_media_is_not_served_any_more(client, trial):
    artifact = stored(trial, "pgbench_stdout", "trial-9-pgbench_stdout.txt", b"tps = 1\n")

    assert client.get(f"/media/{artifact.file.name}").status_code == 404


def test_no_page_links_to_media(client, admin_client, trial):
    artifact = stored(trial, "pgbench_stdout", "trial-9-pgbench_stdout.txt", b"tps = 1\n")
    pages = [
        client.get(reverse("studies:trial", args=[trial.pk])),
        client.get(reverse("studies:detail", args=[trial.study_id])),
        admin_client.get(reverse("admin:studies_trial_change", args=[trial.pk])),
        admin_client.get(reverse("admin:studies_artifact_change", args=[artifact.pk])),
        admin_client.get(reverse("admin:studies_artifact_changelist")),
    ]

    assert [page.status_code for page in pages] == [200] * 5
    for page in pages:
        html = page.content.decode()
        assert "/media/" not in html
    assert reverse("studies:artifact", args=[artifact.pk]) in pages[2].content.decode()
