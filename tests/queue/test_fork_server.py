"""The queue tests' Celery processes are forks of one Python (tests/queue/fork_server.py): each fork must be the
worker its test asked for, as the `celery` command would have started it: its own session (a test kills the group),
the test's environment (the worker's settings), and its end reported as subprocess reports one."""

import os
import signal
import subprocess

import pytest

from tests.queue.conftest import ROOT
from tests.queue.fork_server import ForkedProcess
from tests.queue.support import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_forked_worker_leads_its_session_with_the_test_s_settings_and_a_kill_ends_it_as_a_signal(celery_processes):
    celery_processes.env = {"BENCHDASH_WORKER_HOSTS": "forked-only"}
    worker = celery_processes.worker("forked")
    assert isinstance(worker, ForkedProcess) and os.getsid(worker.pid) == worker.pid
    wait_for(lambda: "serving the hosts forked-only" in celery_processes.log("forked"), 30, "the worker's hosts")
    assert worker.poll() is None
    celery_processes.kill(worker)
    assert worker.poll() == -signal.SIGKILL


def test_a_worker_whose_python_starts_otherwise_is_started_as_the_command(celery_processes):
    celery_processes.env = {"PYTHONPATH": str(ROOT)}
    worker = celery_processes.worker("command")
    assert isinstance(worker, subprocess.Popen) and os.getsid(worker.pid) == worker.pid
