"""A real Celery worker (and beat) as subprocesses, on the test database and a Redis db of their own.

The tests using them are transaction=True, so the worker sees committed rows.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.db import connection

from benchdash.celery import app
from benchdash.studies.models import Scenario

ROOT = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).with_name("celery"))
TEST_REDIS_DB = int(os.environ.get("BENCHDASH_TEST_REDIS_DB", "9"))
# Short clocks so that a lost worker is noticed in seconds, not minutes.
FAST_CLOCKS = {
    "BENCHDASH_TRIAL_HEARTBEAT_S": "1",
    "BENCHDASH_TRIAL_STALE_AFTER_S": "6",
    "BENCHDASH_HOST_BUSY_RETRY_S": "2",
    "BENCHDASH_REQUEUE_EVERY": "2",
    "BENCHDASH_TRIAL_MAX_ATTEMPTS": "2",
    "DATABASE_CONN_MAX_AGE": "0",
}


def test_broker_url() -> str:
    base = settings.REDIS_URL.rsplit("/", 1)[0]
    return f"{base}/{TEST_REDIS_DB}"


test_broker_url.__test__ = False  # type: ignore[attr-defined]


@pytest.fixture
def broker() -> str:
    """Point this process's Celery app at the test Redis db, emptied first."""
    url = test_broker_url()
    redis.Redis.from_url(url).flushdb()
    app.conf.broker_url = url
    app.conf.result_backend = url
    # Drop pools made for another broker URL, if anything sent a task before.
    app._pool = None
    app.amqp._producer_pool = None
    return url


def worker_env(broker_url: str) -> dict[str, str]:
    db = connection.settings_dict
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return {**os.environ, **FAST_CLOCKS, "DATABASE_URL": database_url, "REDIS_URL": broker_url}


class Processes:
    """Celery processes started by a test, each in its own process group, stopped at the end."""

    def __init__(self, broker_url: str, log_dir: Path) -> None:
        self.broker_url = broker_url
        self.log_dir = log_dir
        self.started: list[subprocess.Popen] = []

    def worker(self, name: str) -> subprocess.Popen:
        argv = [CELERY, "-A", "benchdash", "worker", "--loglevel", "INFO", "--concurrency", "1", "--hostname"]
        argv += [f"{name}@%h", "--without-gossip", "--without-mingle"]
        return self._start(name, argv, ready="ready.")

    def beat(self) -> subprocess.Popen:
        argv = [CELERY, "-A", "benchdash", "beat", "--loglevel", "INFO", "--schedule", str(self.log_dir / "beat")]
        return self._start("beat", argv, ready="beat: Starting")

    def _start(self, name: str, argv: list[str], ready: str) -> subprocess.Popen:
        log = self.log_dir / f"{name}.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=worker_env(self.broker_url),
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.started.append(process)
        deadline = time.monotonic() + 60
        while ready not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        return process

    def kill(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        """Signal the whole group: the worker and its pool process, as a lost machine would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        process.wait(timeout=30)

    def log(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.kill(process, signal.SIGTERM)
            if process.poll() is None:
                self.kill(process, signal.SIGKILL)


@pytest.fixture
def celery_processes(broker: str, tmp_path: Path) -> Iterator[Processes]:
    processes = Processes(broker, tmp_path)
    yield processes
    processes.stop_all()


@pytest.fixture
def member(client) -> User:
    user = User.objects.create_user("member", password="pw-member-1")
    user.user_permissions.add(Permission.objects.get(codename="add_study"))
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return user


@pytest.fixture
def presets() -> dict[str, Scenario]:
    call_command("load_presets", stdout=open(os.devnull, "w"))  # noqa: SIM115
    return {scenario.slug: scenario for scenario in Scenario.objects.all()}
