"""`manage.py pgbench_parse FILE...` prints one JSON object per file and exits 1 when a file holds no result."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

OUTPUTS = Path(__file__).parent / "pgbench_outputs"
KEYS = {
    "file",
    "tps",
    "tps_including_connections",
    "clients",
    "threads",
    "duration_s",
    "transactions",
    "failed_transactions",
    "latency_avg_ms",
    "latency_stddev_ms",
    "initial_connection_time_ms",
    "scaling_factor",
    "query_mode",
    "transaction_type",
    "pgbench_version",
    "server_version",
    "aborted",
    "progress",
}


def combined_file(tmp_path: Path, name: str) -> str:
    """The run as the runner stores it: stdout then stderr in one file."""
    path = tmp_path / f"{name}.log"
    path.write_text((OUTPUTS / f"{name}.stdout").read_text() + (OUTPUTS / f"{name}.stderr").read_text())
    return str(path)


def run_command(*files: str) -> list[dict]:
    out = StringIO()
    call_command("pgbench_parse", *files, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_it_prints_one_json_line_per_file_with_the_agreed_keys(tmp_path):
    first, second = combined_file(tmp_path, "pg15_T_progress"), combined_file(tmp_path, "pg16_C_reconnect")

    records = run_command(first, second)

    assert [set(record) for record in records] == [KEYS, KEYS]
    assert [(record["file"], record["tps"]) for record in records] == [(first, 1509.561837), (second, 156.545704)]


def test_progress_from_the_stderr_part_of_the_file_is_in_the_json(tmp_path):
    (record,) = run_command(combined_file(tmp_path, "pg15_T_progress"))

    assert record["progress"][1] == {"t": 2.0, "tps": 1770.9, "latency_ms": 1.126, "stddev_ms": 0.381, "failed": 0}


def test_an_aborted_run_is_reported_as_aborted(tmp_path):
    (record,) = run_command(combined_file(tmp_path, "pg15_server_stopped_mid_run"))

    assert (record["aborted"], record["transactions"], record["duration_s"]) == (True, 6577, 10)


def test_a_file_without_a_result_gets_an_error_key_and_the_command_exits_1(tmp_path):
    good = combined_file(tmp_path, "pg18_T_progress")
    empty = tmp_path / "empty.log"
    empty.write_text("pgbench: error: connection to server failed\n")
    out = StringIO()

    with pytest.raises(CommandError) as raised:
        call_command("pgbench_parse", good, str(empty), stdout=out)

    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0]["tps"] == 1591.406306
    assert records[1] == {
        "file": str(empty),
        "error": "no pgbench result in the output (no transaction count, no tps line)",
    }
    assert raised.value.returncode == 1


def test_a_missing_file_gets_an_error_key(tmp_path):
    missing = str(tmp_path / "nope.log")
    out = StringIO()

    with pytest.raises(CommandError):
        call_command("pgbench_parse", missing, stdout=out)

    record = json.loads(out.getvalue())
    assert record["file"] == missing
    assert "No such file" in record["error"]
