"""A version matrix on real builds: every registered build (Debian's installed one and npm archives of other majors)
in one study queued with `queue_study --builds all`, run by a real worker; the study page draws its own index line
and, once official, the trends page draws it as one line."""

import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.pgbuilds import archive_build_of
from tests.queue.support import paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MAJORS = ("10", "12", "16")  # with Debian's installed 15: four majors


def test_a_study_of_every_registered_build_draws_one_line_from_one_host(
    client, presets, shared_worker, local_target, installed_build
):
    register_host(local_target)
    builds = [register_build(installed_build)] + [register_build(archive_build_of(major)) for major in MAJORS]
    paced = paced_reference_scenario().slug
    args = ["--builds", "all", "--host", "local", "--scenarios", paced, "--clients", "1"]
    args += ["--repetitions", "1", "--duration", "1", "--scale", "1", "--no-sar", "--no-wait-events", "--year", "2026"]
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert set(study.builds.all()) == set(builds)
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 600, "the matrix study")
    study.refresh_from_db()
    assert study.status == Study.Status.DONE, list(study.trials.values_list("error", flat=True))
    assert {trial.server_version.split(".")[0] for trial in study.trials.all()} == {"10", "12", "15", "16"}
    assert all(trial.status == Trial.Status.SUCCEEDED for trial in study.trials.all())

    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    matrix = page.split('<table class="data matrix">')[1].split("</table>")[0]
    # Each row starts with its version, linked to that version's page.
    firsts = re.findall(r'<tr><td><a href="([^"]*)">(\d+)</a></td>', matrix)
    assert firsts == [(reverse("trends:version", args=[major]), major) for major in ("10", "12", "15", "16")]
    # The settings that differ between the majors' trials, read from their servers (SHOW ALL).
    assert "hash_mem_multiplier" in page.split('id="settings-diff"')[1]

    assert study.mark_official(True)
    page = client.get(reverse("trends:index"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    figures = re.findall(r'<script id="index-\d+" type="application/json">(.*?)</script>', page)
    lines = [trace for figure in figures for trace in json.loads(figure)["data"] if "version matrix" in trace["name"]]
    assert [line["x"] for line in lines] == [["10", "12", "15", "16"]]
