"""An A/A duet study through the form and a real worker (issue 42, point 5): both sides of each round at once on the
worker's own machine, each in its half of its two CPUs, the halves swapped each round, the rounds paired in the
results."""

import csv
import io
import threading
import time

import pytest
from django.urls import reverse
from django.utils import translation

from benchdash.reports.manifest import study_manifest
from benchdash.studies.models import Attempt, Study, Trial
from benchdash.studies.results.queries import study_results
from tests.queue.support import form_data, paced_reference_scenario, register_build, register_host, wait_for
from workers.spec import HostSpec
from workers.transport import connect

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_an_aa_duet_runs_both_sides_at_once_on_swapped_halves_and_pairs_its_rounds(
    client, member, presets, shared_worker, local_target, installed_build
):
    build = register_build(installed_build)
    study = aa_duet_ended(client, local_target, build, repetitions="3", threshold="25")
    trials = list(study.trials.order_by("position"))
    assert study.status == Study.Status.DONE, [trial.error for trial in trials]
    assert [trial.variant.label for trial in trials[:2]] == [f"{build.name} (A)", f"{build.name} (B)"]
    assert all(trial.status == Trial.Status.SUCCEEDED and trial.tps for trial in trials)
    leaders, partners = trials[::2], trials[1::2]
    for leader, partner in zip(leaders, partners, strict=True):
        assert leader.repetition == partner.repetition and leader.duet_half == 1 - partner.duet_half
        assert (leader.duet_cpus, partner.duet_cpus) == (str(leader.duet_half), str(partner.duet_half))
        assert leader.command.startswith(f"taskset -c {leader.duet_cpus} ")
        assert f"CPU set {partner.duet_cpus}: pgbench inside it during the run" in partner.notes
    assert [leader.duet_half for leader in leaders] in ([0, 1, 0], [1, 0, 1])
    (compared,) = [point for point in study_results(study) if point.ratio is not None]
    assert compared.n == 3 and len(compared.rounds) == 3 and compared.interval is not None
    # the page, the report and the CSV say which design ran, and each trial its half
    said = "A/A duet: one build on both sides at once, CPUs 0 / 1, swapped each round"
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert said in page and f"half {leaders[0].duet_half + 1} (CPUs {leaders[0].duet_cpus})" in page
    report = client.get(reverse("studies:report", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert said in report
    japanese = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "A/A デュエット: 同じビルドを両側で同時に、CPU 0 / 1、周回ごとに入れ替え" in japanese
    rows = csv_rows(client.get(reverse("studies:trials_csv", args=[study.pk])))
    assert {(row["arrangement"], row["duet_half"], row["duet_cpus"]) for row in rows} == {
        ("duet_aa", "0", "0"),
        ("duet_aa", "1", "1"),
    }
    summary = csv_rows(client.get(reverse("studies:summary_csv", args=[study.pk])))
    assert {row["design"] for row in summary} == {said}
    # the PDF's and the slides' manifest under each figure says it too
    with translation.override("en"):
        assert study_manifest(study, site_url="http://testserver").design.endswith(f" · {said}")
    # B compared with A on the duet's one axis, its side, on the page and in comparisons.csv
    (compared_row,) = csv_rows(client.get(reverse("studies:comparisons_csv", args=[study.pk])))
    assert (compared_row["axis"], compared_row["level"], compared_row["reference_level"]) == ("side", "B", "A")
    assert compared_row["interval_method"] == "paired_own" and compared_row["verdict"]
    assert "side of the A/A duet" in page and "B / A" in page


def aa_duet_ended(client, local_target, build, **options) -> Study:
    """An A/A duet of the build at 1 client, queued from the form on the local target; once it ended."""
    data = form_data(
        host=register_host(local_target),
        builds=[build],
        baseline=build,
        scenarios=[paced_reference_scenario()],
        clients="1",
        arrangement="duet_aa",
        **options,
    )
    response = client.post(reverse("studies:new"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    study = Study.objects.get(title="queue test")
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 420, "the study to finish")
    study.refresh_from_db()
    return study


def csv_rows(response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))


def test_a_round_whose_side_is_killed_runs_again_whole(
    client, member, presets, shared_worker, local_target, installed_build
):
    build = register_build(installed_build)
    killer = threading.Thread(target=_kill_the_first_leader_server, args=(local_target,))
    killer.start()
    study = aa_duet_ended(client, local_target, build, repetitions="2", duration="3")
    killer.join()

    trials = list(study.trials.order_by("position"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, [trial.error for trial in trials]
    assert [trial.attempts for trial in trials] == [2, 2, 1, 1]
    for trial in trials[:2]:  # the killed round, both sides: retried once, then stored together
        results = list(Attempt.objects.filter(trial=trial).order_by("number").values_list("result", flat=True))
        assert results == ["retried", "succeeded"]
    assert "its leader side failed" in Attempt.objects.get(trial=trials[1], number=1).error


def _kill_the_first_leader_server(target: HostSpec) -> None:
    """SIGKILL the leader's postmaster a second after the first round's gate opened (once)."""
    with connect(target) as transport:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            started = transport.run(["find", target.work_dir, "-name", "duet-*.started"], check=False).text
            if started.strip():
                break
            time.sleep(0.1)
        time.sleep(1.0)
        found = transport.run(["find", target.work_dir, "-path", "*duet0/data/postmaster.pid"], check=False).text
        for pid_file in found.split():
            pid = transport.run(["head", "-1", pid_file], check=False).text.strip()
            transport.run(["kill", "-9", pid], check=False)
