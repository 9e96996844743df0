"""A run fails when pgbench aborted, exited non-zero, or ran for less than its duration, whatever tps it printed."""

from pathlib import Path

from workers.pgbench import parse_pgbench_output

OUTPUTS = Path(__file__).parent / "pgbench_outputs"


def streams(name: str) -> tuple[str, str]:
    return (OUTPUTS / f"{name}.stdout").read_text(), (OUTPUTS / f"{name}.stderr").read_text()


def test_a_clean_run_has_no_failure_reason():
    assert (
        parse_pgbench_output(*streams("pg15_T_progress"), exit_status=0, expected_duration_s=3).failure_reason() is None
    )


def test_a_run_with_serialization_failures_still_counts():
    assert parse_pgbench_output(*streams("pg15_serialization_failures")).failure_reason() is None


def test_a_run_killed_mid_way_failed_because_pgbench_aborted_it():
    result = parse_pgbench_output(*streams("pg15_server_stopped_mid_run"), exit_status=2, expected_duration_s=10)

    assert result.aborted is True
    assert result.failure_reason() == (
        "pgbench aborted the run: client 0 aborted in command 10 (SQL) of script 0; "
        "perhaps the backend died while processing"
    )


def test_a_run_whose_clients_all_aborted_fails_with_the_clients_error():
    reason = parse_pgbench_output(*streams("pg18_script_error_aborted"), exit_status=2).failure_reason()

    assert reason == (
        'pgbench aborted the run: client 0 script 0 aborted in command 0 query 0: ERROR:  relation "no_such_table" '
        "does not exist"
    )


def test_a_non_zero_exit_fails_even_with_a_full_result():
    result = parse_pgbench_output(*streams("pg15_T_progress"), exit_status=1)

    assert result.aborted is False
    assert result.failure_reason() == "pgbench exited with status 1"


def test_transactions_over_tps_far_from_the_duration_fails():
    # The killed run, less its abort lines: 6577 transactions at 1883 tps is 3.5 s of a 10 s run.
    stdout, _ = streams("pg15_server_stopped_mid_run")

    reason = parse_pgbench_output(stdout, "", exit_status=0).failure_reason()

    assert reason == "6577 transactions at 1883.2 tps make 3.5 s, far from the 10 s duration"


def test_the_duration_the_runner_asked_for_wins_over_the_printed_one():
    reason = parse_pgbench_output(*streams("pg15_T_progress"), expected_duration_s=60).failure_reason()

    assert reason == "4526 transactions at 1509.6 tps make 3.0 s, far from the 60 s duration"


def test_fewer_transactions_than_asked_with_t_fails():
    stdout, stderr = streams("pg15_t_transactions")
    short = stdout.replace("1000/1000", "800/1000")

    assert parse_pgbench_output(short, stderr).failure_reason() == "pgbench processed only 800 of 1000 transactions"


def test_a_run_that_reported_zero_transactions_fails():
    result = parse_pgbench_output("duration: 2 s\nnumber of transactions actually processed: 0\n")

    assert result.failure_reason() == "pgbench reported no completed transactions"


def test_a_92_run_that_lost_a_client_fails_even_though_it_exited_zero():
    stdout, _ = streams("reconstructed_pg92_t_transactions")

    result = parse_pgbench_output(stdout, "Client 3 aborted in state 8: ERROR:  deadlock detected\n", exit_status=0)

    assert result.failure_reason() == "pgbench aborted the run: Client 3 aborted in state 8: ERROR:  deadlock detected"
