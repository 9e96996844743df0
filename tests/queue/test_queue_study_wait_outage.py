"""`queue_study --wait` is a reader of the store: it rides out a store that restarts under it, as a worker does, and
its exit status still says how the study ended (docs/COMMANDS.md: 0 every trial succeeded, 1 one failed)."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.utils import timezone

from benchdash.studies.models import Study, Trial
from tests.queue.conftest import worker_env
from tests.queue.support import register_build, register_host, store_outage

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
OUTAGE_S = 5


def test_queue_study_wait_rides_out_a_store_restart_and_exits_0_when_the_study_is_done(
    broker, presets, local_target, installed_build
):
    register_host(local_target)
    build = register_build(installed_build)
    argv = [sys.executable, "manage.py", "queue_study", "--host", "local", "--builds", build.major]
    argv += ["--scenarios", "pgecons-reference", "--clients", "1", "--repetitions", "1", "--duration", "2", "--wait"]
    # No worker: the study waits in the queue while the test plays the store's restart and then the study's end.
    waiting = subprocess.Popen(argv, cwd=ROOT, env=worker_env(broker), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # The id is printed once the study is queued: from then on the command only reads, waiting for the end.
        stuck = threading.Timer(60, waiting.kill)  # a command that never prints its id fails the test, not hangs it
        stuck.start()
        printed = waiting.stdout.readline()
        stuck.cancel()
        study = Study.objects.get(kind=Study.Kind.MEASURED)
        assert printed.decode().strip() == str(study.pk) and waiting.poll() is None

        store_outage(OUTAGE_S)
        Trial.objects.filter(study=study).update(status=Trial.Status.SUCCEEDED, tps=100.0, finished_at=timezone.now())
        Study.objects.filter(pk=study.pk).update(status=Study.Status.DONE, finished_at=timezone.now())
        out, err = waiting.communicate(timeout=60)
    finally:
        waiting.kill()

    assert waiting.returncode == 0, err.decode()
    assert out.decode().strip() == ""  # nothing printed after the id
    assert "could not read the study's progress" in err.decode()  # the outage reached it
    assert "Traceback" not in err.decode()
