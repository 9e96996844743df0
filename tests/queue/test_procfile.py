"""`make run` (honcho with deploy/Procfile): a worker that dies, whatever the cause, is started again, and the other
processes go on; honcho used to stop them all when one exited. The systemd units say the same (Restart=always)."""

import configparser
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.queue.conftest import ROOT, worker_env
from tests.queue.support import process_alive, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HONCHO = str(Path(sys.executable).with_name("honcho"))


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        pid = parent_of(pid)
        if pid == ancestor:
            return True
    return False


def celery_workers(honcho: int) -> list[int]:
    """The pids of the Celery worker main processes that keep-running.sh started under this honcho: never those of
    another checkout's `make run` on the same machine (CI once killed a developer's worker by taking it for its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            parent_argv = Path(f"/proc/{parent_of(int(entry.name))}/cmdline").read_bytes()
            ours = descends_from(int(entry.name), honcho)
        except (OSError, ValueError, IndexError):
            continue
        celery_worker = b"worker" in argv and any(arg.endswith(b"/celery") for arg in argv)
        keep_running = not any(arg.endswith(b"keep-running.sh") for arg in argv) and b"keep-running" in parent_argv
        if celery_worker and keep_running and ours:
            found.append(int(entry.name))
    return found


def test_a_worker_killed_under_make_run_is_started_again_and_beat_goes_on(broker, tmp_path):
    log = tmp_path / "honcho.log"
    with log.open("wb") as output:
        honcho = subprocess.Popen(
            [HONCHO, "--procfile", "deploy/Procfile", "--app-root", ".", "start", "worker", "beat"],
            cwd=ROOT,
            env=worker_env(broker),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        first = wait_for(lambda: celery_workers(honcho.pid), 60, "the worker")[0]
        wait_for(lambda: "ready." in log.read_text(), 60, "the worker to be ready")
        os.kill(first, signal.SIGKILL)

        second = wait_for(lambda: [pid for pid in celery_workers(honcho.pid) if pid != first], 60, "a new worker")[0]
        wait_for(lambda: log.read_text().count("ready.") == 2, 60, "the new worker to be ready")
        time.sleep(1)
        text = log.read_text()
        assert honcho.poll() is None, text
        assert second != first
        assert "keep-running: .venv/bin/celery ended with status" in text
        assert "beat.1 stopped" not in text and "worker.1 stopped" not in text
    finally:
        honcho.send_signal(signal.SIGTERM)
        honcho.wait(timeout=30)
    wait_for(lambda: not process_alive(second), 10, "the new worker to end with honcho")


@pytest.mark.parametrize("unit", ["benchdash-worker.service", "benchdash-beat.service"])
def test_systemd_starts_the_worker_and_beat_again_whatever_ended_them(unit):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read(ROOT / "deploy" / "systemd" / unit)
    assert parser["Service"]["Restart"] == "always"
    assert int(parser["Service"]["RestartSec"]) <= 10
