"""A variant's workload (issue 21, point 2): -t transactions per client instead of -T, and -C, on the command line;
a -t run is judged by its transaction count, not by a duration; both TPS figures where pgbench prints both."""

from dataclasses import replace
from pathlib import Path

import pytest

from tests.engine.test_pgbench_command import COMMON, option_value
from tests.engine.test_runner import trial
from workers.pgbench import parse_pgbench_output, pgbench_command
from workers.runner import run_trial

OUTPUTS = Path(__file__).parent / "pgbench_outputs"


def test_transactions_per_client_replace_the_duration_and_connect_adds_dash_c():
    argv = pgbench_command(
        **COMMON, builtin="tpcb-like", script_path=None, scale=None, transactions=100, connect_each_transaction=True
    )
    assert option_value(argv, "-t") == "100"
    assert "-T" not in argv
    assert "-C" in argv
    plain = pgbench_command(**COMMON, builtin="tpcb-like", script_path=None, scale=None)
    assert option_value(plain, "-T") == "300" and "-t" not in plain and "-C" not in plain


def test_a_run_of_a_transaction_count_is_judged_by_that_count_not_by_a_duration():
    stdout = "\n".join(
        [
            "transaction type: <builtin: TPC-B (sort of)>",
            "number of clients: 2",
            "number of transactions per client: 10",
            "number of transactions actually processed: 20/20",
            "tps = 412.937300 (including connections establishing)",
            "tps = 437.241300 (excluding connections establishing)",
        ]
    )
    result = parse_pgbench_output(stdout, expected_duration_s=None)
    assert (result.tps, result.tps_including_connections) == (437.2413, 412.9373)
    assert result.failure_reason() is None
    short = parse_pgbench_output(stdout.replace("20/20", "15/20"), expected_duration_s=None)
    assert short.failure_reason() == "pgbench processed only 15 of 20 transactions"


def test_with_dash_c_pgbench_15_prints_one_figure_that_includes_the_reconnections():
    stdout = (OUTPUTS / "pg15_C_reconnect.stdout").read_text()
    result = parse_pgbench_output(stdout, (OUTPUTS / "pg15_C_reconnect.stderr").read_text(), expected_duration_s=None)
    assert result.tps is not None and result.tps == result.tps_including_connections


@pytest.mark.slow
def test_a_trial_of_a_transaction_count_with_a_connection_each_runs_through_the_engine(
    local_transport, installed_build
):
    spec = trial(local_transport.host, installed_build, "pgbench-select-only", transactions=40)
    spec = replace(spec, connect_each_transaction=True, collect_sar=False, collect_wait_events=False)
    outcome = run_trial(spec, local_transport)
    assert outcome.ok, outcome.error
    assert "-t 40" in outcome.command and "-C" in outcome.command.split() and "-T" not in outcome.command.split()
    assert outcome.transactions == 2 * 40
    # pgbench 15 prints one figure with -C, the reconnections included: it is both.
    assert outcome.tps is not None and outcome.tps == outcome.tps_including_connections
