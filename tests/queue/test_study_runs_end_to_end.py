"""A study queued through the real form runs on a real Celery worker against the real SSH target:
two builds (Debian's 15 and an archive of another major), both seed scenarios; trials land with TPS,
the study finishes, and the CSV downloads hold the rows."""

import csv
import io

import pytest
from django.urls import reverse

from benchdash.studies.models import Artifact, Study, Trial, TrialEvidence
from tests.queue.support import attempt_history, form_data, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
# Two builds x two scenarios at one client level. The runs last 2 s, not 1: sar's first sample, psql's second and
# pgbench's first progress line all come at 1 s, which a 1 s run on a loaded machine could end before.
TRIALS = 2 * 2


def csv_rows(client, url_name: str, study: Study) -> list[dict[str, str]]:
    response = client.get(reverse(url_name, args=[study.pk]))
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_a_study_queued_from_the_form_runs_on_a_worker_and_fills_the_csvs(
    client, member, presets, shared_worker, ssh_target, installed_build, archive_build
):
    host = register_host(ssh_target)
    debian, archive = register_build(installed_build), register_build(archive_build)
    scenarios = [presets["pgecons-reference"], presets["pgecons-update"]]
    data = form_data(
        host=host,
        builds=[debian, archive],
        baseline=min(debian, archive, key=lambda b: b.version_sort),
        scenarios=scenarios,
        clients="1",
        duration="2",
        collect_sar="on",
        collect_wait_events="on",
    )
    response = client.post(reverse("studies:new"), data)
    study = Study.objects.get(title="queue test")
    assert response.status_code == 302

    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 420, "the study to finish")

    study.refresh_from_db()
    trials = list(study.trials.order_by("position"))
    assert study.status == Study.Status.DONE, attempt_history(study)
    assert len(trials) == TRIALS
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps > 0 for trial in trials)
    assert all(trial.attempts == 1 for trial in trials), attempt_history(study)
    assert [trial.started_at for trial in trials] == sorted(trial.started_at for trial in trials)
    assert {trial.server_version.split(".")[0] for trial in trials} == {debian.major, archive.major}
    assert all(trial.pgbench_version.startswith("15") and "pgbench" in trial.command for trial in trials)
    assert {trial.host_facts.get("cpu_threads") for trial in trials} != {None}
    assert Artifact.objects.filter(trial__study=study, kind="pgbench_stdout").count() == TRIALS
    # each trial's evidence, summarised by the worker when it finished
    evidence = list(TrialEvidence.objects.filter(trial__study=study))
    assert len(evidence) == TRIALS
    read = [(row.trial_id, row.cpu_idle, row.wait_samples, row.progress_seconds, row.collectors) for row in evidence]
    assert all(cpu_idle is not None and waits > 0 and progress >= 1 for _t, cpu_idle, waits, progress, _c in read), read
    assert {row.collectors["perf"]["state"] for row in evidence} == {"off"}

    trials_csv = csv_rows(client, "studies:trials_csv", study)
    assert len(trials_csv) == TRIALS
    assert sorted(float(row["tps"]) for row in trials_csv) == sorted(trial.tps for trial in trials)
    summary_csv = csv_rows(client, "studies:summary_csv", study)
    assert len(summary_csv) == TRIALS
    assert all(row["n"] == "1" and float(row["median_tps"]) > 0 for row in summary_csv)
    assert {row["ratio_to_baseline"] == "" for row in summary_csv} == {True, False}

    progress = client.get(reverse("studies:progress", args=[study.pk])).json()
    assert (progress["finished"], progress["total"], progress["failed"], progress["ended"]) == (TRIALS, TRIALS, 0, True)
