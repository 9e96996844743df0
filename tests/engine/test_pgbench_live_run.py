"""The command line pgbench_command builds, run by a real pgbench (15, and 13 from Debian 11) against the real store,
parses back."""

import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from workers.pgbench import PgbenchResult, parse_pgbench_output, pgbench_command

PGBENCH = Path("/usr/lib/postgresql/15/bin/pgbench")
pytestmark = pytest.mark.servers  # pgbench against the store's own address


def run_against_the_store(pgbench: Path, script: Path, **options) -> PgbenchResult:
    """Run pgbench_command's argv with `options` against the store's test database; the parsed result."""
    database = settings.DATABASES["default"]
    argv = pgbench_command(
        pgbench=str(pgbench),
        host=database["HOST"],
        port=int(database["PORT"]),
        user=database["USER"],
        dbname=database["NAME"],
        builtin="",
        script_path=str(script),
        threads=1,
        duration_s=2,
        **options,
    )
    # The store asks for its password when set-up made it (scram); the environment keeps it off the command line.
    env = {**os.environ, "PGPASSWORD": database.get("PASSWORD") or ""}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False, env=env)
    result = parse_pgbench_output(done.stdout, done.stderr, done.returncode, expected_duration_s=2)
    assert result.failure_reason() is None, done.stderr
    return result


@pytest.mark.skipif(not PGBENCH.exists(), reason="pgbench 15 is not installed")
def test_a_custom_script_run_sees_the_scale_and_reports_each_second(tmp_path):
    # The script reads :scale and touches no table: it fails unless -s reached pgbench.
    script = tmp_path / "scale.sql"
    script.write_text("\\set s :scale\nSELECT :s;\n")

    result = run_against_the_store(PGBENCH, script, clients=2, scale=7, protocol="prepared")

    assert (result.scaling_factor, result.clients, result.threads, result.duration_s) == (7, 2, 1, 2)
    assert result.query_mode == "prepared"
    assert result.transactions > 0
    assert [point.t for point in result.progress] == [1.0, 2.0]


@pytest.mark.parametrize("connect_each_transaction", [False, True], ids=["one-connection", "-C"])
def test_pgbench_13_reports_tps_both_including_and_excluding_the_connections(
    tmp_path, pgbench_13, connect_each_transaction
):
    """The seeds' question of seed 002, asked of a real pgbench 13: with -C every transaction pays a connection
    (scram authentication included), so the TPS including connections falls far below the one excluding them."""
    script = tmp_path / "select.sql"
    script.write_text("SELECT 1;\n")

    result = run_against_the_store(
        pgbench_13, script, clients=1, scale=1, protocol="simple", connect_each_transaction=connect_each_transaction
    )

    assert result.transactions > 0
    assert 0 < result.tps_including_connections <= result.tps
    if connect_each_transaction:
        assert result.tps > 2 * result.tps_including_connections, (result.tps, result.tps_including_connections)
