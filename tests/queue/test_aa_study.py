"""A/A: one build against itself (two builds pointing at the same binaries) on real runs through a real worker,
with adaptive repetitions: every cell must say "can't tell", never faster or slower. The runs are the paced reference
scenario's (tests/queue/support.py): a cell compared with the wrong cell (another client count) is still x2 or x0.5,
and the 16 to 20 runs leave the cores to the rest of the suite, which the reference script at full speed would take.

The study's threshold is 25%, not the default 2%. Each cell's interval holds the true ratio (1) with 95% when the
runs are exchangeable, so at 2% an A/A cell may be called a few times in a hundred by design. On a CI machine whose
other test worker loads it in bursts they are not even exchangeable: CI called a 1-client cell slower at 2% (5 runs
a side, CV 17%) and another faster at 10% (interval x1.107 to x1.595). How often an A/A cell is called on recorded
runs is measured by bench/false_alarms.py; this test is about the path from the form to the verdicts, which a cell
called at 25% (a swapped baseline, runs compared across client counts) would still show broken."""

import csv
import dataclasses
import io

import pytest
from django.urls import reverse

from benchdash.studies.models import Study, Trial
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.uncertainty import Verdict
from tests.queue.conftest import NOISE_MICRO_RUNS
from tests.queue.support import form_data, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_one_build_against_itself_cannot_tell_in_any_cell(
    client, member, presets, shared_worker, local_target, installed_build
):
    host = register_host(local_target)
    same = register_build(installed_build)
    twin = register_build(dataclasses.replace(installed_build, name=f"{installed_build.name}-twin"))
    assert twin.bin_dir == same.bin_dir and twin.pk != same.pk
    data = form_data(
        host=host,
        builds=[same, twin],
        baseline=same,
        scenarios=[paced_reference_scenario()],
        repetitions="3",
        max_repetitions="5",
        duration="1",
        threshold="25",
    )
    client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 420, "the study to finish")

    study.refresh_from_db()
    assert study.status == Study.Status.DONE, list(study.trials.values_list("error", flat=True))
    compared = [point for point in study_results(study) if point.build_id == twin.pk]
    assert [point.clients for point in compared] == [1, 2]
    # A new host: the 3 rounds alone draw each cell's first interval (paired by round, 2 df), which settles a cell
    # that lies within +-25% there; a cell that does not gets rounds up to the cap.
    assert all(point.n is not None and 3 <= point.n <= 5 for point in compared), [point.n for point in compared]
    assert all(trial.status == Trial.Status.SUCCEEDED for trial in study.trials.all())
    assert {point.verdict for point in compared} == {Verdict.CANT_TELL}, [
        (point.clients, point.runs, point.interval) for point in compared
    ]
    # The noise check ran on the DB host before the first trial; its verdict travels with the study.
    assert study.noise_check["verdict"] in {"quiet", "some_noise", "noisy"}
    assert len(study.noise_check["facts"]["micro_us"]) == NOISE_MICRO_RUNS
    response = client.get(reverse("studies:summary_csv", args=[study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert [row["verdict"] for row in rows if row["baseline"] == "false"] == ["cant_tell", "cant_tell"]
