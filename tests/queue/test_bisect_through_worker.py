"""A small bisect end to end: `manage.py bisect --builds 16.13..16.14` on a template's design queues its first study
(the two ends), a real worker runs it (scale 1, -T 1, 2 runs a minor, adaptive up to 3), and its end records the
step's verdict and concludes the bisect, whichever the verdict: two adjacent minors leave nothing to narrow."""

import io

import pytest
from django.core.management import CommandError, call_command

from benchdash.changes.models import Bisect
from benchdash.studies.models import Study
from tests.factories import StudyFactory
from tests.queue.support import paced_reference_scenario, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_bisect_of_two_minors_runs_its_study_and_concludes(presets, shared_worker, local_target):
    host = register_host(local_target)
    template = StudyFactory(
        db_host=host,
        repetitions=2,
        max_repetitions=3,
        duration_s=1,
        scale=1,
        collect_sar=False,
        collect_wait_events=False,
        status=Study.Status.DONE,
    )
    out = io.StringIO()
    args = ["--template", str(template.pk), "--scenario", paced_reference_scenario().slug, "--clients", "1"]
    try:
        call_command("bisect", "--builds", "16.13..16.14", *args, stdout=out)
    except CommandError as error:
        if "reach the registry" in str(error):
            pytest.skip("no npm registry")
        raise
    bisect = Bisect.objects.get(pk=int(out.getvalue()))
    wait_for(lambda: Bisect.objects.get(pk=bisect.pk).status != Bisect.Status.RUNNING, 300, "the bisect")
    bisect.refresh_from_db()
    [step] = bisect.steps.select_related("study")
    assert step.study.status == Study.Status.DONE, list(step.study.trials.values_list("error", flat=True))
    assert (step.low, step.compared) == (0, 1)
    assert step.verdict in ("faster", "slower", "same", "cant_tell", "too_few_runs")
    expected = {"faster": "found", "slower": "found", "same": "no_change"}.get(step.verdict, "inconclusive")
    assert bisect.status == expected
    if expected == "found":
        assert bisect.first_changed.version == "16.14"
