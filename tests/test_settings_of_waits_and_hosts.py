"""Bad values of the scale-out and fault settings stop start-up with the variable's name, before a worker takes
any trial: the hosts a worker serves, the delays and limit of waiting for an unreachable host, the noise check's
window and micro-runs, and how long a host keeps pristine data."""

import re
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.settings_read import settings_read_under
from tests.test_setup_and_settings_ports import ROOT, clean_env

SETUP = "import django; django.setup()"
BAD = {
    "BENCHDASH_WORKER_HOSTS=target-1,target 2": "BENCHDASH_WORKER_HOSTS must be host names",
    "BENCHDASH_HOST_WAIT_DELAYS_S=5,ten": "BENCHDASH_HOST_WAIT_DELAYS_S must be positive numbers",
    "BENCHDASH_HOST_WAIT_DELAYS_S=0,5": "BENCHDASH_HOST_WAIT_DELAYS_S must be positive numbers",
    "BENCHDASH_HOST_WAIT_LIMIT_S=3500": "BENCHDASH_HOST_WAIT_LIMIT_S must be above 0 and below",
    "BENCHDASH_NOISE_SAMPLE_MS=50": "BENCHDASH_NOISE_SAMPLE_MS must be between 100 and 30000",
    "BENCHDASH_NOISE_MICRO_RUNS=2": "BENCHDASH_NOISE_MICRO_RUNS must be between 3 and 100",
    "BENCHDASH_PRISTINE_KEEP_DAYS=-1": "BENCHDASH_PRISTINE_KEEP_DAYS must be between 0 and 3650",
    "BENCHDASH_TRIAL_RETRY_DELAY_S=-5": "BENCHDASH_TRIAL_RETRY_DELAY_S must be between 0 and 3600",
}
GOOD = "BENCHDASH_WORKER_HOSTS=target-1,target-2"


def start_up(assignment: str) -> subprocess.Popen:
    name, value = assignment.split("=", 1)
    env = clean_env(**{name: value})
    return subprocess.Popen([sys.executable, "-c", SETUP], cwd=ROOT, env=env, stderr=subprocess.PIPE)


def outcome(process: subprocess.Popen) -> tuple[int, str]:
    _, stderr = process.communicate(timeout=120)
    return process.returncode, stderr.decode()


@pytest.mark.parametrize("assignment", BAD)
def test_a_bad_value_is_refused_with_its_name(assignment):
    name, value = assignment.split("=", 1)

    with pytest.raises(ImproperlyConfigured, match=re.escape(BAD[assignment])):
        settings_read_under(clean_env(**{name: value}))


def test_a_good_value_is_read():
    assert settings_read_under(clean_env(BENCHDASH_WORKER_HOSTS="target-1,target-2"))["WORKER_HOSTS"] == [
        "target-1",
        "target-2",
    ]


def test_a_bad_value_stops_start_up_with_its_name_and_a_good_one_starts():
    """What the tests above read in-process, in real start-ups: one bad value, and the good one."""
    bad = next(iter(BAD))
    started = {assignment: start_up(assignment) for assignment in (bad, GOOD)}  # at once: each takes a second
    ended = {assignment: outcome(process) for assignment, process in started.items()}

    assert ended[bad][0] != 0 and BAD[bad] in ended[bad][1]
    assert ended[GOOD][0] == 0, ended[GOOD][1][-2000:]
