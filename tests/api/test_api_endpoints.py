"""Every endpoint of /api/v1/ answers the figures the pages show, in pages, and nothing but GET."""

import pytest

from tests.api.conftest import History
from tests.factories import StudyFactory, TrialFactory

API = "/api/v1"


def get(client, path: str, **params) -> dict | list:
    response = client.get(f"{API}{path}", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_hosts_list_their_facts_but_no_login_details(client, history: History) -> None:
    page = get(client, "/hosts")
    one = get(client, f"/hosts/{history.host.pk}")

    assert page["count"] == 1 and page["items"][0] == one
    assert one["name"] == "db-1" and one["address"] == "192.0.2.7" and one["port"] == 22
    assert not {"username", "key_path", "host_key"} & set(one)


def test_builds_newest_first_and_of_one_major_or_minor(client, history: History) -> None:
    assert [build["version"] for build in get(client, "/builds")["items"]] == ["15.2", "14.3", "14.0", "13.4"]
    assert [build["version"] for build in get(client, "/builds", version="14")["items"]] == ["14.3", "14.0"]
    assert [build["version"] for build in get(client, "/builds", version="14.3")["items"]] == ["14.3"]
    one = get(client, f"/builds/{history.builds['14.3'].pk}")
    assert one["name"] == "PostgreSQL 14.3" and one["major"] == "14" and one["kind"] == "installed"


def test_scenarios_by_slug(client, history: History) -> None:
    assert [scenario["slug"] for scenario in get(client, "/scenarios")["items"]] == ["update"]
    assert get(client, "/scenarios/update")["name"] == "更新系"


def test_studies_newest_first_with_filters(client, history: History) -> None:
    assert [study["year"] for study in get(client, "/studies")["items"]] == [2023, 2022, 2021]
    draft = StudyFactory(year=2020, db_host=history.host, host_order="in_turn")
    assert (
        get(client, f"/studies/{draft.pk}")["build_ids"]
        == []
        == get(client, "/studies", year=2020)["items"][0]["scenario_slugs"]
    )
    official = get(client, "/studies", official="true")
    assert official["count"] == 2 and {study["id"] for study in official["items"]} == {
        history.older.pk,
        history.newer.pk,
    }
    one = get(client, f"/studies/{history.older.pk}")
    assert one["build_ids"] == sorted([history.builds["13.4"].pk, history.builds["14.0"].pk])
    assert one["scenario_slugs"] == ["update"] and one["baseline_id"] == history.builds["13.4"].pk
    assert one["db_host_id"] == history.host.pk and one["status"] == "done" and one["official"] is True
    assert one["host_order"] == "together" and get(client, f"/studies/{draft.pk}")["host_order"] == "in_turn"


def test_trials_come_in_run_order_in_pages(client, history: History) -> None:
    everything = get(client, f"/studies/{history.older.pk}/trials")
    second_page = get(client, f"/studies/{history.older.pk}/trials", limit=5, offset=5)

    assert everything["count"] == 16 == second_page["count"]
    assert second_page["items"] == everything["items"][5:10]
    positions = [trial["position"] for trial in everything["items"]]
    assert positions == sorted(positions)
    new_build = history.builds["14.0"].pk
    filtered = get(client, f"/studies/{history.older.pk}/trials", build_id=new_build, clients=2)
    assert [trial["tps"] for trial in filtered["items"]] == pytest.approx([220.0] * 4)
    one = get(client, f"/trials/{filtered['items'][0]['id']}")
    assert one == filtered["items"][0] and one["status"] == "succeeded"


def test_a_failed_trial_carries_its_failure_kind_beside_its_error(client, history: History) -> None:
    failed = {"status": "failed", "error": "attempt 1: cancelled during reset", "failure_kind": "cancelled"}
    trial = TrialFactory(study=history.older, repetition=9, **failed)

    one = get(client, f"/trials/{trial.pk}")

    assert {name: one[name] for name in failed} == failed


def test_points_carry_median_ratio_interval_and_verdict(client, history: History) -> None:
    points = get(client, f"/studies/{history.older.pk}/points")["items"]

    by_key = {(point["build_version"], point["clients"]): point for point in points}
    assert len(points) == 4
    baseline = by_key[("13.4", 2)]
    assert baseline["median"] == 200.0 and baseline["minimum"] == 198.0 and baseline["n"] == 4
    assert baseline["ratio"] is None and baseline["verdict"] is None
    newer = by_key[("14.0", 2)]
    assert newer["ratio"] == pytest.approx(1.1) and newer["runs"] == pytest.approx([220.0] * 4)
    assert newer["ratio_low"] < 1.1 < newer["ratio_high"] and newer["verdict"] == "faster"


def test_trends_chain_the_official_studies_only(client, history: History) -> None:
    trends = get(client, "/trends")
    one = get(client, "/trends/update")

    assert trends["count"] == 1 and trends["items"][0] == one
    index = {point["version"]: point for point in one["index"]}
    assert index["13"]["index"] == 100.0 and index["14"]["index"] == pytest.approx(110.0)
    assert index["14"]["study_id"] == history.older.pk and index["14"]["reached_from"] == "13"
    # 14.3 -> 15.2 of the newer study carries the line on from 14: 110 x 1.2.
    assert index["15"]["index"] == pytest.approx(132.0) and index["15"]["study_id"] == history.newer.pk
    # Each official point carries its interval, from the runs of the links that reached it.
    assert (index["13"]["index_low"], index["13"]["index_high"]) == (100.0, 100.0)
    assert index["14"]["index_low"] < 110.0 < index["14"]["index_high"]
    assert index["14"]["index_high"] < index["15"]["index_high"] and index["15"]["index_low"] < 132.0


def test_trend_links_say_which_carry_the_index(client, history: History) -> None:
    links = get(client, "/trends/update/links")["items"]

    assert [(link["older_build"], link["newer_build"], link["verdict"]) for link in links] == [
        ("13.4", "14.0", "used"),
        ("14.3", "15.2", "used"),
    ]
    assert links[0]["ratio"] == pytest.approx(1.1) and links[0]["levels"] == ["1", "2"]
    assert links[0]["ratio_low"] < 1.1 < links[0]["ratio_high"]
    assert links[1]["study_year"] == 2022 and links[1]["study_id"] == history.newer.pk


def test_evidence_summaries_of_a_study_and_of_a_trial(client, history: History, evidence_trial) -> None:
    rows = get(client, f"/studies/{history.older.pk}/evidence")["items"]
    trial = get(client, f"/trials/{evidence_trial.pk}/evidence")

    profiled = [row for row in rows if row["build_version"] == "13.4" and row["clients"] == 1]
    assert profiled and profiled[0]["wait_samples"] > 0 and profiled[0]["cpu_user"] is not None
    assert trial["trial_id"] == evidence_trial.pk and trial["progress_seconds"] > 0 and trial["wait_samples"] > 0
    assert trial["cpu_user"] == pytest.approx(evidence_trial.evidence.cpu_user)
    assert "series" not in trial and "perf_flame" not in trial


@pytest.mark.parametrize(
    "path",
    [
        "/hosts/999999",
        "/builds/999999",
        "/scenarios/none",
        "/studies/999999",
        "/studies/999999/trials",
        "/studies/999999/points",
        "/trials/999999",
        "/trials/999999/evidence",
        "/trends/none",
    ],
)
def test_what_does_not_exist_is_a_404_in_json(client, history: History, path: str) -> None:
    response = client.get(f"{API}{path}")
    assert response.status_code == 404 and response.json() == {"detail": "Not Found"}


def test_a_page_is_at_most_500_items(client, history: History) -> None:
    assert client.get(f"{API}/studies", {"limit": 501}).status_code == 400
    assert client.get(f"{API}/studies", {"offset": -1}).status_code == 400
    assert get(client, "/studies", limit=500)["count"] == 3


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_nothing_can_be_written(client, history: History, method: str) -> None:
    response = getattr(client, method)(f"{API}/studies/{history.older.pk}")
    assert response.status_code == 405
    assert history.older.__class__.objects.filter(pk=history.older.pk).exists()
