"""A real tiny study with one warm-up run per cell, through a real worker: each cell runs once more, first, and that
run is recorded, marked warm-up, and counted in no point."""

import pytest
from django.urls import reverse

from benchdash.studies.models import Study, StudyPoint, Trial
from tests.queue.support import form_data, paced_reference_scenario, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_study_with_a_warm_up_run_per_cell_runs_it_first_and_does_not_count_it(
    client, member, presets, shared_worker, local_target, installed_build
):
    host, build = register_host(local_target), register_build(installed_build)
    data = form_data(
        host=host, builds=[build], baseline=build, scenarios=[paced_reference_scenario()], repetitions="2",
        warmup_runs="1",
    )  # fmt: skip
    client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 300, "the study to finish")

    study.refresh_from_db()
    assert study.status == Study.Status.DONE, list(study.trials.values_list("error", flat=True))
    trials = list(study.trials.order_by("position"))
    first_round = sorted((trial.clients, trial.repetition, trial.warmup) for trial in trials[:2])
    assert first_round == [(1, 0, True), (2, 0, True)]  # the warm-up round runs before every counted one
    assert len(trials) == 2 * (1 + 2)  # clients 1 and 2: one warm-up and two counted runs each
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps for trial in trials)
    warmups, counted_trials = trials[:2], trials[2:]
    assert max(t.finished_at for t in warmups) <= min(t.started_at for t in counted_trials)
    points = {point.clients: point for point in StudyPoint.objects.filter(study=study)}
    assert sorted(points) == [1, 2]
    for clients, point in points.items():
        counted = sorted(t.tps for t in trials if t.clients == clients and not t.warmup)
        assert (point.n, point.runs, sorted(point.rounds)) == (2, counted, [1, 2])
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert page.split('id="trials"')[1].count('class="warmup"') == 2
