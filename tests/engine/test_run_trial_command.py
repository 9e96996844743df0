"""`manage.py run_trial`: one trial on the local host with Debian's PostgreSQL 15, printed or as JSON."""

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command

from tests.queue.support import register_host

pytestmark = [pytest.mark.slow, pytest.mark.django_db, pytest.mark.shared_pristine_data]
ARGUMENTS = ["--host", "local", "--build", "15", "--scenario", "pgecons-reference"]
SIZES = ["--clients", "2", "--duration", "2", "--scale", "1"]


@pytest.fixture
def local_host(local_target):
    call_command("load_presets", stdout=StringIO())
    return register_host(local_target)


def run_trial_command(*extra: str) -> str:
    out = StringIO()
    call_command("run_trial", *ARGUMENTS, *SIZES, *extra, stdout=out)
    return out.getvalue()


def test_it_prints_the_outcome_with_a_positive_tps(local_host):
    printed = run_trial_command()
    tps = re.search(r"^tps: ([\d,.]+) ", printed, re.MULTILINE)
    assert tps is not None, printed
    assert float(tps.group(1).replace(",", "")) > 0
    assert "result: ok" in printed
    assert re.search(r"^command: \S*pgbench .*-c 2 .*-T 2", printed, re.MULTILINE)


def test_its_json_output_parses_with_the_outcome_keys(local_host):
    outcome = json.loads(run_trial_command("--json"))
    assert {"ok", "tps", "command", "server_version", "pgbench_version", "timings", "artifacts"} <= outcome.keys()
    assert (outcome["ok"], outcome["error"]) == (True, "")
    assert outcome["tps"] > 0 and outcome["transactions"] > 0
    assert outcome["server_version"].startswith("15.")
    assert outcome["timings"]["pgbench"] >= 2
    assert outcome["artifacts"]["pgbench_stdout"] > 0
