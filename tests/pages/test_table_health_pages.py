"""Table health: a trial's readings summarised per relation, and shown on the trial and study pages and in the CSV."""

import csv
import io
import json

import pytest
from django.urls import reverse

from benchdash.studies.evidence.table_health import summarize_table_health
from tests.evidence_samples import real_artifacts, real_table_health
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory
from tests.pages.test_evidence_pages import finished_trial, text_of

MIB = 1 << 20


def by_name(rows: list[dict]) -> dict[str, dict]:
    return {row["name"]: row for row in rows}


def test_a_real_update_run_keeps_its_size_and_every_update_is_hot_at_fillfactor_80():
    rows = by_name(summarize_table_health(json.loads(real_table_health())))
    accounts = rows["pgbench_accounts"]
    assert accounts["bytes_before"] == accounts["bytes_after"] == 16719872
    assert (accounts["updates"], accounts["hot_updates"], accounts["hot_share"]) == (4147, 4147, 1.0)
    assert accounts["dead_share_before"] == 0 and accounts["dead_share_after"] == pytest.approx(1787 / 101787)
    assert (accounts["pgstattuple_dead_percent_before"], accounts["pgstattuple_dead_percent_after"]) == (0, 1.29)
    assert rows["pgbench_history"]["dead_share_before"] is None  # an empty table has no share
    assert rows["pgbench_accounts_pkey"]["kind"] == "index" and "updates" not in rows["pgbench_accounts_pkey"]


def seed_003_readings(after_mib: int, dead_percent: float) -> bytes:
    """Seed 003's 8.1.4 accounts: 「128 MB」 loaded, then 「141 MB」 and 「dead_tuple_percent | 8.66」 updated."""
    relation = {"name": "pgbench_accounts", "table": "pgbench_accounts", "kind": "table"}

    def reading(mib: int, dead: float, updates: int, hot: int) -> dict:
        # n_dead_tup chosen so that the dead-tuple share is dead %: dead / (100 - dead) dead tuples per live one
        live = 1_000_000
        stats = {"name": "pgbench_accounts", "n_live_tup": live, "n_dead_tup": round(live * dead / (100 - dead))}
        return {
            "relations": [{**relation, "bytes": mib * MIB}],
            "tables": [{**stats, "n_tup_upd": updates, "n_tup_hot_upd": hot}],
            "pgstattuple": [{"name": "pgbench_accounts", "dead_tuple_percent": dead}],
        }

    readings = {"before": reading(128, 0, 0, 0), "after": reading(after_mib, dead_percent, 100_000, 20_000)}
    return json.dumps(readings).encode()


@pytest.fixture
def hot_study(db):
    scenario = ScenarioFactory(slug="pgbench-tpcb", name="TPC-B")
    old, new = BuildFactory(name="8.1.4", version="8.1.4"), BuildFactory(name="8.3.1", version="8.3.1")
    study = StudyFactory(title="HOT", builds=[old, new], scenarios=[scenario], baseline=old, status="done")
    for build, after_mib, dead in ((old, 141, 8.66), (old, 143, 8.0), (new, 137, 1.48)):
        artifacts = {**real_artifacts(), "table_health": seed_003_readings(after_mib, dead)}
        repetition = study.trials.filter(build=build).count() + 1
        finished_trial(study, build, scenario, 10, repetition=repetition, artifacts=artifacts)
    return study


def test_the_study_page_shows_growth_dead_share_and_hot_share_per_variant(client, hot_study):
    page = client.get(reverse("studies:detail", args=[hot_study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = text_of(page.split('id="table-health"')[1].split("</section>")[0])
    # 8.1.4: the mean of two trials, 141 and 143 MiB after 128; 8.3.1: 137 after 128
    assert "8.1.4 10 2 pgbench_accounts 128.0 142.0 10.9% 0.00%" in section
    assert "8.3.1 10 1 pgbench_accounts 128.0 137.0 7.0%" in section
    assert "20.0% 0.00% 8.33% " in section and "1.48%" in section


def test_the_table_health_csv_has_a_row_per_variant_clients_and_relation(client, hot_study):
    response = client.get(reverse("studies:table_health_csv", args=[hot_study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    accounts = [row for row in rows if row["relation"] == "pgbench_accounts"]
    assert [(row["variant"], row["trials"], row["bytes_after"]) for row in accounts] == [
        ("8.1.4", "2", str(142.0 * MIB)),
        ("8.3.1", "1", str(137.0 * MIB)),
    ]
    assert accounts[0]["pgstattuple_dead_percent_after"] == "8.33" and accounts[0]["hot_share"] == "0.2"


def test_the_trial_page_shows_its_relations_in_japanese(client, hot_study):
    trial = hot_study.trials.get(build__name="8.3.1")
    page = client.get(reverse("studies:trial", args=[trial.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    section = text_of(page.split('id="table-health"')[1].split("</section>")[0])
    assert "リレーション" in section and "HOT 更新の割合" in section
    assert "pgbench_accounts 128.0 137.0 7.0%" in section and "1.48%" in section
