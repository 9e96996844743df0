"""Each pgbench version's format (reconstructed ones included), and where the lines may come from."""

from pathlib import Path

import pytest

from workers.pgbench import PgbenchOutputError, ProgressPoint, parse_pgbench_output

OUTPUTS = Path(__file__).parent / "pgbench_outputs"


def streams(name: str) -> tuple[str, str]:
    return (OUTPUTS / f"{name}.stdout").read_text(), (OUTPUTS / f"{name}.stderr").read_text()


def test_92_gives_both_tps_figures_and_no_latency():
    result = parse_pgbench_output(*streams("reconstructed_pg92_t_transactions"))

    assert (result.tps, result.tps_including_connections) == (712.221039, 712.165617)
    assert (result.transactions, result.latency_avg_ms, result.pgbench_version) == (50000, None, None)
    assert result.transaction_type == "TPC-B (sort of)"


def test_94_latency_lines_with_a_colon_are_read():
    result = parse_pgbench_output(*streams("reconstructed_pg94_T_progress"))

    assert (result.latency_avg_ms, result.latency_stddev_ms, result.scaling_factor) == (5.333, 2.101, 10)
    assert result.progress[0] == ProgressPoint(t=1.0, tps=1480.2, latency_ms=5.390, stddev_ms=2.200, failed=None)


def test_13_excluding_connections_is_the_tps_and_including_is_kept_beside_it():
    result = parse_pgbench_output(*streams("pg13_T_progress"))

    assert (result.tps, result.tps_including_connections) == (1383.295896, 1379.127962)
    assert (result.latency_avg_ms, result.query_mode, result.failed_transactions) == (1.435, "simple", None)
    assert result.progress[0] == ProgressPoint(t=1.0, tps=1473.9, latency_ms=1.324, stddev_ms=1.322, failed=None)


def test_13_with_a_new_connection_per_transaction_makes_its_duration_with_the_tps_including_connections():
    """-C before 14: the tps excluding the connections leaves out most of the run (187 transactions at 145.0 make
    1.3 s of a 2 s run); the one including them makes the run's 2 s, so the run counts."""
    result = parse_pgbench_output(*streams("pg13_C_reconnect"), expected_duration_s=2)

    assert (result.tps, result.tps_including_connections, result.transactions) == (144.995334, 93.197956, 187)
    assert result.failure_reason() is None


def test_13_fatal_run_was_aborted_marks_the_run_aborted():
    result = parse_pgbench_output(*streams("reconstructed_pg13_aborted"), exit_status=2)

    assert result.aborted is True
    assert result.tps == 3418.414178


def test_14_gives_the_banner_and_the_tps_without_initial_connection_time():
    result = parse_pgbench_output(*streams("reconstructed_pg14_T_progress"))

    assert (result.tps, result.tps_including_connections, result.initial_connection_time_ms) == (
        246.785711,
        None,
        5.047,
    )
    assert result.pgbench_version == result.server_version == "14.7 (Debian 14.7-1.pgdg110+1)"


def test_14_banner_names_a_different_server_version():
    result = parse_pgbench_output(*streams("reconstructed_pg14_C_reconnect"))

    assert (result.pgbench_version, result.server_version) == ("14.7", "13.10")
    assert result.tps == result.tps_including_connections == 155.000127


def test_the_banner_of_15_against_13_gives_both_versions():
    result = parse_pgbench_output("pgbench (15.3, server 13.23)\nnumber of transactions actually processed: 5\n")

    assert (result.pgbench_version, result.server_version) == ("15.3", "13.23")


def test_progress_lines_count_in_stdout_as_well_as_in_stderr():
    stdout, stderr = streams("pg15_T_progress")

    apart = parse_pgbench_output(stdout, stderr)
    combined = parse_pgbench_output(stdout + stderr)
    progress_first = parse_pgbench_output(stderr + stdout)

    assert apart.to_dict() == combined.to_dict() == progress_first.to_dict()
    assert [point.tps for point in combined.progress] == [1419.0, 1770.9, 1334.1]


def test_an_empty_progress_interval_gives_none_instead_of_nan():
    result = parse_pgbench_output(
        "number of transactions actually processed: 10\ntps = 5.0 (without initial connection time)\n",
        "progress: 1.0 s, 0.0 tps, lat -nan ms stddev -nan, 0 failed\n",
    )

    assert result.to_dict()["progress"] == [{"t": 1.0, "tps": 0.0, "latency_ms": None, "stddev_ms": None, "failed": 0}]


@pytest.mark.parametrize(
    "stdout, stderr",
    [
        ("", ""),
        ("", 'pgbench: error: connection to server at "127.0.0.1", port 5999 failed: Connection refused\n'),
        ("transaction type: <builtin: TPC-B (sort of)>\nscaling factor: 1\n", ""),
    ],
)
def test_output_without_a_result_raises(stdout, stderr):
    with pytest.raises(PgbenchOutputError, match="no pgbench result"):
        parse_pgbench_output(stdout, stderr, exit_status=1)
