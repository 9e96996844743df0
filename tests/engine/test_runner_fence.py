"""Two attempts of one trial on one host: the later one fences the host, and the earlier one, which goes on as if
nothing happened (its worker was cut off from the store, say), touches nothing of it."""

import threading
import time
from dataclasses import replace

import pytest

from tests.engine.test_runner import pgbench_runs, postmaster_pid, quiet_trial
from tests.queue.support import wait_for
from workers.runner import run_trial
from workers.transport import connect

pytestmark = [pytest.mark.slow, pytest.mark.shared_pristine_data]


def test_an_attempt_replaced_by_a_later_one_stops_nothing_of_it(local_target, installed_build):
    earlier = replace(quiet_trial(local_target, installed_build, 5, duration_s=60), attempt=1, fence="9.100")
    later = replace(earlier, attempt=2, fence="9.101", duration_s=2, keep_server=True)
    outcomes = {}

    def run_earlier() -> None:
        with connect(local_target) as transport:
            outcomes["earlier"] = run_trial(earlier, transport, should_cancel=lambda: False)

    with connect(local_target) as watcher:
        runner = threading.Thread(target=run_earlier)
        runner.start()
        wait_for(lambda: pgbench_runs(watcher), 60, "the earlier attempt's pgbench")
        with connect(local_target) as transport:
            outcomes["later"] = run_trial(later, transport)
        server = postmaster_pid(watcher, later)
        runner.join(timeout=120)
        time.sleep(1)  # anything the earlier attempt still did would show by now

        assert outcomes["later"].ok is True, outcomes["later"].error
        assert outcomes["later"].notes[0] == "stopped leftovers on local: pgbench"
        assert outcomes["earlier"].ok is False
        assert "AttemptFenced" in outcomes["earlier"].error
        assert any("cleanup: could not stop the server: AttemptFenced" in note for note in outcomes["earlier"].notes)
        # The server the later attempt kept for its next trial still runs: the earlier one's cleanup was refused.
        assert server is not None and postmaster_pid(watcher, later) == server
        run_trial(replace(later, trial_id=6, reset_data=False, keep_server=False, fence="9.102"), watcher)
