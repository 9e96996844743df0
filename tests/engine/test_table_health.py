"""The table-health readings of a real trial: sizes, dead tuples, HOT updates and pgstattuple before and after."""

import json

import pytest

from tests.engine.test_runner import trial
from tests.sshd import counted_commands
from workers.runner import run_trial
from workers.table_health import TableHealth

pytestmark = [pytest.mark.slow, pytest.mark.shared_pristine_data]


def by_name(rows: list[dict]) -> dict[str, dict]:
    return {row["name"]: row for row in rows}


def test_an_update_trial_reads_the_tables_before_and_after_the_run(local_transport, installed_build):
    spec = trial(local_transport.host, installed_build, "pgecons-update", collect_sar=False, collect_wait_events=False)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok is True, outcome.error
    health = json.loads(outcome.artifacts["table_health"])
    before, after = health["before"], health["after"]
    accounts_before = by_name(before["tables"])["pgbench_accounts"]
    accounts_after = by_name(after["tables"])["pgbench_accounts"]
    assert accounts_before["n_live_tup"] == 100_000 and accounts_before["n_tup_upd"] == 0
    updated = accounts_after["n_tup_upd"] - accounts_before["n_tup_upd"]
    assert updated == outcome.transactions  # every update of the run counted, none lost to the stats' lag
    assert 0 <= accounts_after["n_tup_hot_upd"] <= updated
    sizes = by_name(after["relations"])
    assert sizes["pgbench_accounts"]["kind"] == "table" and sizes["pgbench_accounts"]["bytes"] > 8192
    index = sizes["pgbench_accounts_pkey"]
    assert (index["kind"], index["table"]) == ("index", "pgbench_accounts") and index["bytes"] > 8192
    stattuple_before = by_name(before["pgstattuple"])["pgbench_accounts"]
    assert stattuple_before["tuple_count"] == 100_000 and stattuple_before["dead_tuple_percent"] == 0
    assert by_name(after["pgstattuple"])["pgbench_accounts"]["dead_tuple_count"] > 0
    assert outcome.timings["table_health"] > 0
    assert not [note for note in outcome.notes if note.startswith("table_health")]


def test_a_profiling_run_reads_nothing(local_transport, installed_build):
    spec = trial(local_transport.host, installed_build, profile_only=True, collect_sar=False, collect_wait_events=False)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok is True, outcome.error
    assert "table_health" not in outcome.artifacts and "table_health" not in outcome.timings


class WithoutTheExtension(TableHealth):
    extension = "pgstattuple_this_build_lacks"


class ReadInTheBackground(TableHealth):
    quick_bytes = 0


@pytest.mark.parametrize(("health_of", "background"), [(TableHealth, False), (ReadInTheBackground, True)])
def test_pgstattuple_reads_small_tables_in_one_command_and_larger_ones_in_the_background(
    new_cluster, local_transport, installed_build, health_of, background, monkeypatch
):
    """Larger tables are read by a background command, which a cancel can stop (Transport.run_long)."""
    cluster = new_cluster(local_transport, installed_build)
    cluster.start()
    cluster.pgbench_init(1)
    local_transport.should_stop = lambda: False
    commands = counted_commands(local_transport, monkeypatch)
    health = health_of(cluster)
    health.read("before")
    if not background:
        assert len(commands) == 1, commands  # the sizes, the statistics and pgstattuple's rows: one psql
    stattuple = by_name(health.readings["before"]["pgstattuple"])
    assert stattuple["pgbench_accounts"]["tuple_count"] == 100_000 and health.notes == []
    assert health.readings["before"]["tables"] and health.readings["before"]["relations"]
    assert local_transport.exists(f"{local_transport.run_dir}/stattuple.rc") is background


def test_a_build_without_pgstattuple_gives_the_rest_and_says_so(
    new_cluster, local_transport, installed_build, monkeypatch
):
    cluster = new_cluster(local_transport, installed_build)
    cluster.start()
    cluster.pgbench_init(1)
    health = WithoutTheExtension(cluster)
    health.read("before")
    commands = counted_commands(local_transport, monkeypatch)
    health.read("after")
    assert len(commands) == 2, commands  # apart once the extension was found missing: the sizes, then its try
    readings = json.loads(health.artifact()["table_health"])
    assert readings["after"]["pgstattuple"] is None
    assert by_name(readings["after"]["tables"])["pgbench_branches"]["n_live_tup"] == 1
    assert len(health.notes) == 1 and "pgstattuple not available in this build" in health.notes[0]
    assert "pgstattuple_this_build_lacks" in health.notes[0]


def test_a_server_that_does_not_answer_gives_a_note_not_an_error(new_cluster, local_transport, installed_build):
    health = TableHealth(new_cluster(local_transport, installed_build))  # never started
    health.read("before")
    assert health.artifact() == {}
    assert health.notes[0].startswith("table_health: no reading before the run")


def test_a_table_pgstattuple_left_out_for_its_size_is_noted_with_it():
    health = TableHealth(cluster=None)  # the note needs no server
    relations = [
        {"name": "pgbench_accounts", "kind": "table", "bytes": 3 << 30},
        {"name": "pgbench_accounts_pkey", "kind": "index", "bytes": 2 << 30},
        {"name": "pgbench_branches", "kind": "table", "bytes": 8192},
    ]
    health.note_too_large("after", relations, {"pgbench_branches"})
    assert health.notes == ["table_health: pgstattuple skipped pgbench_accounts after the run (3072 MiB > 1024 MiB)"]
