"""A tiny variant study end to end through a real worker (issue 21): one build with data checksums off and on, on one
CPU (a CPU set), scale 1, 1-second runs; each variant's cluster is made with its own initdb options, every server
process stays inside the CPU set, and the page and CSV carry both variants."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from tests.queue.support import attempt_history, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_checksum_study_on_one_cpu_runs_both_variants_through_a_worker(
    client, member, presets, shared_worker, local_target, installed_build
):
    register_host(local_target)
    build = register_build(installed_build)
    paced = paced_reference_scenario().slug
    args = ["--builds", build.name, "--host", "local", "--scenarios", paced, "--clients", "1"]
    args += ["--repetitions", "1", "--duration", "1", "--scale", "1", "--no-sar", "--no-wait-events"]
    args += ["--vary", "checksums=off,on", "--vary", "cpus=1", "--baseline", "checksums=off"]
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 300, "the variant study")

    trials = list(study.trials.select_related("variant").order_by("position"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, attempt_history(study)
    assert sorted(trial.variant.label for trial in trials) == [
        f"{build.name} checksums=off",
        f"{build.name} checksums=on",
    ]
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps > 0 for trial in trials)
    checksums = {trial.variant.data_checksums: trial.server_settings["data_checksums"] for trial in trials}
    assert checksums == {False: "off", True: "on"}
    assert all("CPU set 0: " in trial.notes and "server processes inside it" in trial.notes for trial in trials)

    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert f"{build.name} checksums=on" in page.split('id="variants"')[1]
    rows = b"".join(client.get(reverse("studies:summary_csv", args=[study.pk])).streaming_content).decode()
    assert len(rows.strip().splitlines()) == 1 + 2
