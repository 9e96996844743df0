"""Collectors: the parsers on real captured files, and sar on a real host."""

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from workers.collectors import (
    CollectorSet,
    SarCollector,
    fold_perf_script,
    missing_tool_notes,
    parse_sadf_json,
    parse_wait_samples,
    perf_window,
)
from workers.transport import connect

CAPTURED = Path(__file__).parent / "sar_outputs"


def captured(name: str) -> str:
    return (CAPTURED / name).read_text()


def test_it_reads_cpu_memory_and_disk_series_from_sadf_json():
    series = parse_sadf_json(captured("sadf_j_pgbench_c4.json"))
    assert series["cpus"] == 2
    assert series["interval_s"] == 1
    assert series["time"][:2] == ["2026-11-22T00:19:35Z", "2026-11-22T00:19:36Z"]
    assert series["cpu"]["user"] == [41.15, 40.31, 36.27, 36.92, 2.01]
    assert series["cpu"]["idle"][4] == 95.48
    assert series["cpu"]["steal"][1] == 0.52
    assert series["memory"]["used_percent"][0] == 2.87
    assert series["disks"]["vda"]["util_percent"][:2] == [23.6, 27.2]
    assert series["disks"]["vda"]["await_ms"][0] == 0.09


def test_every_cpu_share_in_the_captured_series_is_a_percentage():
    series = parse_sadf_json(captured("sadf_j_pgbench_c4.json"))
    for column in series["cpu"].values():
        assert all(0 <= value <= 100 for value in column)
    totals = [sum(values) for values in zip(*series["cpu"].values(), strict=True)]
    assert all(abs(total - 100) < 0.5 for total in totals)


def test_a_disk_missing_from_a_sample_gives_none_there():
    document = json.loads(captured("sadf_j_pgbench_c4.json"))
    del document["sysstat"]["hosts"][0]["statistics"][1]["disk"]
    series = parse_sadf_json(json.dumps(document))
    assert series["disks"]["vda"]["util_percent"][:3] == [23.6, None, 28.0]


@pytest.mark.skipif(not shutil.which("sadf"), reason="sysstat is not installed")
def test_the_captured_binary_file_reads_back_as_the_captured_json():
    exported = subprocess.run(
        ["sadf", "-j", str(CAPTURED / "sar_pgbench_c4.bin"), "--", "-u", "-d", "-r"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert parse_sadf_json(exported.stdout) == parse_sadf_json(captured("sadf_j_pgbench_c4.json"))


def test_it_counts_wait_events_per_type_and_event():
    samples = parse_wait_samples(captured("wait_events_pgbench_c4.out"))
    assert samples["samples"] == 6
    assert samples["counts"] == [
        {"wait_event_type": "Lock", "wait_event": "transactionid", "count": 6},
        {"wait_event_type": "IO", "wait_event": "WALSync", "count": 1},
    ]
    assert samples["series"][0]["counts"] == {"Lock:transactionid": 2}


def test_it_ignores_lines_that_are_not_samples_and_keeps_empty_samples():
    text = '\n{"t" : "2026-11-22T00:00:01+00", "counts" : []}\nERROR:  oops\n\n'
    text += '{"t" : "2026-11-22T00:00:02+00", "counts" : [["CPU", "CPU", 3]]}\n'
    samples = parse_wait_samples(text)
    assert samples["samples"] == 2
    assert samples["counts"] == [{"wait_event_type": "CPU", "wait_event": "CPU", "count": 3}]


def test_it_folds_perf_script_stacks_outermost_first():
    folded = fold_perf_script(captured("perf_script_pgbench_c4.txt")).splitlines()
    assert sum(int(line.rsplit(" ", 1)[1]) for line in folded) == 80
    expected = (
        "postgres;__libc_start_call_main;main;PostmasterMain;[postgres];PostgresMain;[postgres];pg_plan_queries;"
        "pg_plan_query;standard_planner;set_plan_references;[postgres];[postgres] 1"
    )
    assert expected in folded
    assert folded == sorted(folded)


def test_it_counts_identical_stacks_together_and_names_unknown_symbols_by_module():
    sample = (
        "postgres 10 1.0: 250000 cpu-clock:u:\n"
        "\t     95064 unlink_chunk+0x4 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
        "\t    3bfff7 [unknown] (/usr/lib/postgresql/15/bin/postgres)\n"
        "\t         0 [unknown] ([unknown])\n\n"
    )
    assert fold_perf_script(sample * 3) == "postgres;[unknown];[postgres];unlink_chunk 3\n"


def test_a_sample_without_a_call_chain_folds_to_its_command_name():
    assert fold_perf_script("pgbench 77/78 5.5: 1 cpu-clock:u:\n\n") == "pgbench 1\n"


def test_perf_records_the_middle_of_the_run_for_at_most_thirty_seconds():
    assert perf_window(3) == (1.5, 0.75)
    assert perf_window(60) == (30.0, 15.0)
    assert perf_window(600) == (30.0, 285.0)


def test_a_collector_whose_tool_the_host_lacks_gets_a_note():
    facts = {"sar": "sysstat version 12.6.1", "perf": None}
    notes = missing_tool_notes(facts, {"sar": True, "perf": True})
    assert notes == {"perf": "perf: skipped, not installed on the host"}
    assert missing_tool_notes(facts, {"sar": True, "perf": False}) == {}


@pytest.mark.skipif(not shutil.which("sar"), reason="sysstat is not installed")
def test_sar_on_a_real_host_gives_plausible_series(local_target):
    with connect(local_target) as transport:
        trial_dir = f"{local_target.work_dir}/trial"
        transport.run(["mkdir", "-p", trial_dir])
        collectors = CollectorSet([SarCollector(transport, trial_dir)])
        collectors.start()
        time.sleep(3.2)
        collectors.stop()
        artifacts = collectors.artifacts()
    series = json.loads(artifacts["sar_series"])
    assert len(artifacts["sar"]) > 1000
    assert len(series["time"]) >= 2
    assert all(0 <= idle <= 100 for idle in series["cpu"]["idle"])
    assert all(0 <= used <= 100 for used in series["memory"]["used_percent"])
    assert collectors.notes == []


def test_a_collector_whose_command_fails_is_skipped_with_a_note(local_target):
    with connect(local_target) as transport:
        collectors = CollectorSet([SarCollector(transport, "/nonexistent/benchdash-trial")])
        collectors.start()
        collectors.stop()
        assert collectors.artifacts() == {}
    assert len(collectors.notes) == 1
    assert collectors.notes[0].startswith("sar: no data")
