"""The evidence on the study page, the trial page and their data files, from summaries of real collector outputs."""

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Artifact, Trial
from tests.evidence_samples import SEED_13, SEED_14, folded, real_artifacts
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

pytestmark = pytest.mark.django_db


def figure(page: str, figure_id: str) -> dict:
    match = re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', page, re.S)
    assert match, f"no figure {figure_id}"
    return json.loads(match.group(1))


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def finished_trial(study, build, scenario, clients, repetition=1, tps=1500.0, artifacts=None, **fields) -> Trial:
    trial = succeeded_trial(study, build, scenario, clients, repetition, tps, transactions=int(tps * 4), **fields)
    evidence_refresh(trial=trial, artifacts=real_artifacts() if artifacts is None else artifacts)
    return trial


@pytest.fixture
def evidence_study(db):
    """13.4 vs 14.0 at 1 and 4 clients; 14.0 is 6% slower at 1 client and its profile has index_fetch_heap grown."""
    scenario = ScenarioFactory(slug="pgecons-reference", name="参照系")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    study = StudyFactory(
        title="13.4 vs 14.0",
        builds=[old, new],
        scenarios=[scenario],
        baseline=old,
        status="done",
        duration_s=4,
        collect_sar=True,
        collect_wait_events=True,
        collect_perf=True,
    )
    perf = {old: folded(SEED_13), new: folded(SEED_14)}
    for build, tps_at_1 in ((old, 437.0), (new, 412.0)):
        finished_trial(
            study, build, scenario, 1, tps=tps_at_1, artifacts={**real_artifacts(), "perf_folded": perf[build]}
        )
        finished_trial(
            study, build, scenario, 4, tps=1500.0, artifacts={**real_artifacts(), "perf_folded": perf[build]}
        )
    return study


def study_page(client, study, query: str = "") -> str:
    url = reverse("studies:detail", args=[study.pk]) + query
    return client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_cpu_breakdown_stands_the_builds_side_by_side_at_each_client_level(client, evidence_study):
    scenario_id = evidence_study.scenarios.get().pk
    cpu = figure(study_page(client, evidence_study), f"evidence-{scenario_id}-cpu")

    assert [trace["name"] for trace in cpu["data"]] == ["user", "system", "iowait", "steal", "idle"]
    assert cpu["data"][0]["x"] == [["1", "1", "4", "4"], ["13.4", "14.0"] * 2]
    assert cpu["data"][0]["y"] == [38.66] * 4
    assert cpu["layout"]["barmode"] == "stack"


def test_cpu_per_transaction_is_charted_per_build(client, evidence_study):
    scenario_id = evidence_study.scenarios.get().pk
    chart = figure(study_page(client, evidence_study), f"evidence-{scenario_id}-cpu-tx")

    old = chart["data"][0]
    assert old["name"] == "PostgreSQL 13.4" and old["x"] == [1, 4]
    # 79.635 % of 2 CPUs for 4 s (transactions = 4 x TPS): 6370.8 ms / (4 x 437) transactions
    assert old["y"][0] == pytest.approx(6370.8 / (4 * 437), abs=1e-4)


def test_wait_events_are_stacked_shares_with_the_events_named(client, evidence_study):
    scenario_id = evidence_study.scenarios.get().pk
    waits = figure(study_page(client, evidence_study), f"evidence-{scenario_id}-waits")

    assert [trace["name"] for trace in waits["data"]] == ["Lock: transactionid", "IO: WALSync"]
    assert waits["data"][0]["y"] == [83.33] * 4


def test_each_build_and_client_level_gets_a_bottleneck_label_with_its_rule(client, evidence_study):
    page = study_page(client, evidence_study)
    table = text_of(re.search(r'<table class="data bottleneck">.*?</table>', page, re.S).group(0))

    # the real samples: Lock transactionid waits on 83% of the sampled backends
    assert table.count("lock/wait-bound") == 4
    assert "Lock + LWLock + BufferPin waits 83.3% of sampled backends ≥ 30.0%" in table
    assert "unstable: 1 trial, CV up to 0.13" in table


def test_perf_is_shown_where_the_newer_build_fell_furthest_behind_with_the_grown_function_on_top(
    client, evidence_study
):
    page = study_page(client, evidence_study)
    new = evidence_study.builds.get(version="14.0")
    scenario_id = evidence_study.scenarios.get().pk

    differential = figure(page, f"perf-diff-{scenario_id}-{new.pk}")["data"][0]
    assert re.search(r"Profiles at\s*<strong>1 client</strong>", page)
    assert differential["y"][0] == "index_fetch_heap"
    assert differential["x"][0] > 0 and differential["marker"]["color"][0] == "#c92a2a"
    assert differential["x"][-1] < 0 and differential["marker"]["color"][-1] == "#2b8a3e"
    flame = figure(page, f"flame-{scenario_id}-{new.pk}")["data"][0]
    assert flame["type"] == "icicle" and flame["labels"][:3] == ["all", "postgres", "main"]


def test_another_perf_level_can_be_chosen(client, evidence_study):
    page = study_page(client, evidence_study, "?perf_clients=4")

    assert re.search(
        r"Profiles at\s*<a href=\"\?perf_clients=1#perf-pgecons-reference\">1</a> · <strong>4 clients", page
    )


def test_a_collector_that_was_off_or_failed_is_named_with_the_reason_instead_of_a_chart(client):
    scenario, build = ScenarioFactory(slug="s"), BuildFactory(version="15.0")
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build, collect_sar=True, collect_perf=False)
    artifacts = {key: value for key, value in real_artifacts().items() if key in ("progress", "wait_events")}
    finished_trial(study, build, scenario, 1, artifacts=artifacts, notes="sar: skipped, not installed on the host")

    page = text_of(study_page(client, study))

    assert "perf was off for this study: no profiles or flame graphs." in page
    assert "sar: no data for 1 trial" in page and "sar: skipped, not installed on the host" in page
    assert "sar gave no data for this scenario" in page
    assert f"evidence-{scenario.pk}-cpu" not in study_page(client, study)


def test_the_trial_page_shows_its_curves_stability_collectors_and_raw_files(client, evidence_study):
    trial = evidence_study.trials.get(build__version="14.0", clients=1)
    Artifact.objects.create(trial=trial, kind="sar", file="artifacts/x/trial-1-sar.sa", size=10)
    page = client.get(reverse("studies:trial", args=[trial.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    timeline = figure(page, "trial-timeline")
    names = [trace["name"] for trace in timeline["data"]]
    assert names[:2] == ["TPS", "latency (ms)"] and "vda %util" in names and "Lock" in names
    assert "coefficient of variation <strong>0.125</strong>" in page and "unstable" in page
    assert figure(page, "trial-flame")["data"][0]["type"] == "icicle"
    assert reverse("studies:artifact", args=[trial.artifacts.get().pk]) in page
    assert "/media/" not in page


def test_the_evidence_csv_has_a_row_per_build_and_client_level(client, evidence_study):
    response = client.get(reverse("studies:evidence_csv", args=[evidence_study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))

    assert [(row["build"], row["clients"]) for row in rows] == [
        ("PostgreSQL 13.4", "1"),
        ("PostgreSQL 14.0", "1"),
        ("PostgreSQL 13.4", "4"),
        ("PostgreSQL 14.0", "4"),
    ]
    assert (
        rows[0]["cpu_user"] == "38.663"
        and rows[0]["bottleneck"] == "lock"
        and rows[0]["bottleneck_rule"] == "lock_waits"
    )
    assert rows[0]["baseline"] == "true" and rows[1]["baseline"] == "false"


def test_wait_events_and_perf_csv_hold_every_share(client, evidence_study):
    waits = client.get(reverse("studies:wait_events_csv", args=[evidence_study.pk]))
    wait_rows = list(csv.DictReader(io.StringIO(b"".join(waits.streaming_content).decode("utf-8-sig"))))
    perf = client.get(reverse("studies:perf_csv", args=[evidence_study.pk]))
    perf_rows = list(csv.DictReader(io.StringIO(b"".join(perf.streaming_content).decode("utf-8-sig"))))

    assert len(wait_rows) == 8 and wait_rows[0]["wait_event"] == "transactionid" and wait_rows[0]["share"] == "0.8333"
    new_self = [
        row
        for row in perf_rows
        if row["build_version"] == "14.0" and row["clients"] == "1" and row["measure"] == "self"
    ]
    assert {row["function"]: row["share"] for row in new_self}["index_fetch_heap"] == str(round(180 / 1080, 4))


def test_the_evidence_json_and_a_trial_s_series_csv(client, evidence_study):
    data = client.get(reverse("studies:evidence_json", args=[evidence_study.pk])).json()
    trial = evidence_study.trials.get(build__version="13.4", clients=4)
    series = client.get(reverse("studies:trial_series_csv", args=[trial.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(series.streaming_content).decode("utf-8-sig"))))
    trial_json = client.get(reverse("studies:trial_evidence_json", args=[trial.pk])).json()

    assert len(data["points"]) == 4 and len(data["trials"]) == 4 and data["baseline"] == "PostgreSQL 13.4"
    assert rows[0]["second"] == "1" and rows[0]["tps"] == "1419.0" and rows[0]["cpu_user"] == "41.15"
    assert rows[0]["active_backends"] == "2"
    assert trial_json["cpu_user"] == pytest.approx(38.6625) and trial_json["perf_samples"] == 1000
