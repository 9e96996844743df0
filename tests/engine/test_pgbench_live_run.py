"""The command line pgbench_command builds, run by a real pgbench against the real store, parses back."""

import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from workers.pgbench import parse_pgbench_output, pgbench_command

PGBENCH = Path("/usr/lib/postgresql/15/bin/pgbench")
pytestmark = pytest.mark.servers  # pgbench against the store's own address


@pytest.mark.skipif(not PGBENCH.exists(), reason="pgbench 15 is not installed")
def test_a_custom_script_run_sees_the_scale_and_reports_each_second(tmp_path):
    # The script reads :scale and touches no table: it fails unless -s reached pgbench.
    script = tmp_path / "scale.sql"
    script.write_text("\\set s :scale\nSELECT :s;\n")
    database = settings.DATABASES["default"]
    argv = pgbench_command(
        pgbench=str(PGBENCH),
        host=database["HOST"],
        port=int(database["PORT"]),
        user=database["USER"],
        dbname=database["NAME"],
        builtin="",
        script_path=str(script),
        clients=2,
        threads=1,
        duration_s=2,
        scale=7,
        protocol="prepared",
    )

    # The store asks for its password when set-up made it (scram); the environment keeps it off the command line.
    env = {**os.environ, "PGPASSWORD": database.get("PASSWORD") or ""}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False, env=env)
    result = parse_pgbench_output(done.stdout, done.stderr, done.returncode, expected_duration_s=2)

    assert result.failure_reason() is None, done.stderr
    assert (result.scaling_factor, result.clients, result.threads, result.duration_s) == (7, 2, 1, 2)
    assert result.query_mode == "prepared"
    assert result.transactions > 0
    assert [point.t for point in result.progress] == [1.0, 2.0]
