"""Every real pgbench output in pgbench_outputs/ parses to the figures written in it."""

import re
from pathlib import Path

import pytest

from workers.pgbench import ProgressPoint, parse_pgbench_output

OUTPUTS = Path(__file__).parent / "pgbench_outputs"
DEBIAN_15 = "15.20 (Debian 15.20-0+deb12u1)"


def read_run(name: str) -> tuple[str, str, int]:
    """stdout, stderr and exit status of one saved run."""
    exit_status = re.search(r"exit status: (\d+)", (OUTPUTS / f"{name}.cmd").read_text())
    assert exit_status
    return (OUTPUTS / f"{name}.stdout").read_text(), (OUTPUTS / f"{name}.stderr").read_text(), int(exit_status[1])


def parsed(name: str):
    stdout, stderr, exit_status = read_run(name)
    return parse_pgbench_output(stdout, stderr, exit_status)


EXPECTED = {
    "pg15_T_progress": {
        "tps": 1509.561837,
        "tps_including_connections": None,
        "clients": 2,
        "threads": 1,
        "duration_s": 3,
        "transactions": 4526,
        "failed_transactions": 0,
        "latency_avg_ms": 1.320,
        "latency_stddev_ms": 0.668,
        "initial_connection_time_ms": 6.040,
        "scaling_factor": 1,
        "query_mode": "simple",
        "transaction_type": "<builtin: TPC-B (sort of)>",
        "pgbench_version": DEBIAN_15,
        "server_version": DEBIAN_15,
        "aborted": False,
    },
    "pg15_t_transactions": {
        "tps": 826.872018,
        "duration_s": None,
        "transactions": 1000,
        "latency_avg_ms": 2.419,
        "latency_stddev_ms": None,
        "initial_connection_time_ms": 12.009,
        "aborted": False,
    },
    "pg15_C_reconnect": {
        "tps": 157.878986,
        "tps_including_connections": 157.878986,
        "transactions": 316,
        "latency_avg_ms": 12.668,
        "initial_connection_time_ms": None,
        "aborted": False,
    },
    "pg15_r_statement_latencies": {
        "tps": 1667.130175,
        "threads": 2,
        "transactions": 3333,
        "latency_avg_ms": 1.200,
        "aborted": False,
    },
    "pg15_weighted_builtins": {
        "tps": 7114.184233,
        "transactions": 14217,
        "latency_avg_ms": 0.281,
        "latency_stddev_ms": None,
        "transaction_type": "multiple scripts",
    },
    "pg15_custom_script_scale": {
        "tps": 1341.196077,
        "transactions": 4019,
        "latency_avg_ms": 1.490,
        "latency_stddev_ms": 0.385,
        "scaling_factor": 1,
        "transaction_type": "reference.sql",
    },
    "pg15_M_prepared": {
        "tps": 30951.406157,
        "transactions": 61689,
        "query_mode": "prepared",
        "transaction_type": "<builtin: select only>",
        "latency_avg_ms": 0.062,
        "latency_stddev_ms": 0.204,
    },
    "pg15_serialization_failures": {
        "tps": 1325.466927,
        "clients": 4,
        "threads": 2,
        "transactions": 3948,
        "failed_transactions": 8380,
        "latency_avg_ms": 0.852,
        "latency_stddev_ms": 0.722,
        "initial_connection_time_ms": 25.526,
    },
    "pg15_retries_failures_detailed": {
        "tps": 1576.343860,
        "transactions": 3129,
        "failed_transactions": 2017,
        "latency_avg_ms": 1.543,
    },
    "pg15_script_error_aborted": {
        "tps": None,
        "transactions": 0,
        "failed_transactions": 0,
        "latency_avg_ms": None,
        "aborted": True,
    },
    "pg15_server_stopped_mid_run": {
        "tps": 1883.212749,
        "duration_s": 10,
        "transactions": 6577,
        "latency_avg_ms": 1.058,
        "aborted": True,
    },
    "pg15_against_server16_T_progress": {
        "tps": 1360.366619,
        "transactions": 2720,
        "latency_avg_ms": 1.463,
        "latency_stddev_ms": 0.505,
        "initial_connection_time_ms": 6.219,
        "pgbench_version": DEBIAN_15,
        "server_version": "16.2",
    },
    "pg13_T_progress": {
        "tps": 1383.295896,
        "tps_including_connections": 1379.127962,
        "duration_s": 3,
        "transactions": 4139,
        "latency_avg_ms": 1.435,
        "latency_stddev_ms": 1.384,
        "initial_connection_time_ms": None,
        "pgbench_version": None,
        "transaction_type": "<builtin: TPC-B (sort of)>",
    },
    "pg13_C_reconnect": {"tps": 144.995334, "tps_including_connections": 93.197956, "transactions": 187},
    "pg13_t_transactions": {
        "tps": 1068.663959,
        "tps_including_connections": 1053.960305,
        "duration_s": None,
        "transactions": 600,
    },
    "pg16_T_progress": {
        "tps": 1642.218693,
        "transactions": 3279,
        "latency_avg_ms": 1.213,
        "latency_stddev_ms": 0.612,
        "initial_connection_time_ms": 8.364,
        "pgbench_version": "16.2",
        "server_version": DEBIAN_15,
    },
    "pg16_C_reconnect": {
        "tps": 156.545704,
        "tps_including_connections": 156.545704,
        "transactions": 314,
        "pgbench_version": "16.2",
        "server_version": DEBIAN_15,
    },
    "pg16_t_transactions": {"tps": 2045.735834, "duration_s": None, "transactions": 600, "latency_avg_ms": 0.978},
    "pg18_T_progress": {
        "tps": 1591.406306,
        "transactions": 3181,
        "latency_avg_ms": 1.251,
        "latency_stddev_ms": 0.603,
        "pgbench_version": "18.6",
        "server_version": DEBIAN_15,
    },
    "pg18_C_reconnect": {"tps": 160.254416, "tps_including_connections": 160.254416, "transactions": 322},
    "pg18_t_transactions": {"tps": 1789.367578, "transactions": 600, "initial_connection_time_ms": 4.634},
    "pg18_serialization_failures_r": {
        "tps": 1936.910765,
        "transactions": 3877,
        "failed_transactions": 9204,
        "latency_avg_ms": 0.566,
    },
    "pg18_weighted_builtins": {"tps": 5982.113226, "transactions": 11951, "transaction_type": "multiple scripts"},
    "pg18_script_error_aborted": {"tps": None, "transactions": 0, "failed_transactions": None, "aborted": True},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_real_output_parses_to_the_figures_it_prints(name):
    result = parsed(name).to_dict()

    assert {key: result[key] for key in EXPECTED[name]} == EXPECTED[name]


def test_every_real_output_in_the_folder_is_checked():
    real = {path.stem for path in OUTPUTS.glob("pg*.stdout")}

    assert real == set(EXPECTED)


def test_progress_lines_of_pgbench_15_carry_the_failed_count():
    assert parsed("pg15_serialization_failures").progress == [
        ProgressPoint(t=1.0, tps=1273.7, latency_ms=0.850, stddev_ms=0.640, failed=2942),
        ProgressPoint(t=2.0, tps=1217.2, latency_ms=0.930, stddev_ms=0.767, failed=2465),
        ProgressPoint(t=3.0, tps=1454.4, latency_ms=0.787, stddev_ms=0.736, failed=2973),
    ]


def test_the_progress_of_a_killed_run_stops_where_the_server_went_away():
    assert [point.t for point in parsed("pg15_server_stopped_mid_run").progress] == [1.0, 2.0, 3.0]


def test_per_script_figures_of_pgbench_18_do_not_replace_the_totals():
    result = parsed("pg18_weighted_builtins")

    assert (result.transactions, result.latency_avg_ms, result.latency_stddev_ms) == (11951, 0.334, None)
