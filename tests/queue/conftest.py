"""A real Celery worker (and beat) as processes of their own (forked from tests/queue/fork_server.py), on the test
database and a Redis db of their own.

The tests using them are transaction=True, so the worker sees committed rows.
"""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection

from benchdash.celery import app
from benchdash.studies.models import Scenario
from benchdash.studies.preset_sync import presets_sync
from tests.queue.fork_server import CELERY_FORKS, CeleryProcess
from tests.queue.in_process import TasksInProcess
from tests.sshd import free_port
from tests.store_template import store_url

ROOT = Path(__file__).resolve().parents[2]
QUEUE_TESTS = Path(__file__).resolve().parent
CELERY = str(Path(sys.executable).with_name("celery"))
# One Redis db per pytest-xdist worker (gw0, gw1, ...): each flushes its own before every test.
XDIST_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
TEST_REDIS_DB = int(os.environ.get("BENCHDASH_TEST_REDIS_DB", "9")) + XDIST_WORKER
# Short clocks so that a lost worker is noticed in seconds, not minutes; the noise check before each study samples
# the processes for 0.2 s, not a second, and times its micro-run 3 times, not 10: the tests run about 80 studies,
# and what the check says matters to none of them but its own tests.
NOISE_MICRO_RUNS = 3
FAST_CLOCKS = {
    "BENCHDASH_TRIAL_HEARTBEAT_S": "1",
    "BENCHDASH_TRIAL_STALE_AFTER_S": "6",
    "BENCHDASH_HOST_BUSY_RETRY_S": "2",
    "BENCHDASH_REQUEUE_EVERY": "2",
    "BENCHDASH_TRIAL_MAX_ATTEMPTS": "2",
    "BENCHDASH_TRIAL_RETRY_DELAY_S": "1",
    "BENCHDASH_WORKER_HOSTS_REFRESH_S": "1",
    "BENCHDASH_NOISE_SAMPLE_MS": "200",
    "BENCHDASH_NOISE_MICRO_RUNS": str(NOISE_MICRO_RUNS),
}
# The same clocks as the settings of this process, for the tasks it runs itself (tasks_in_process).
FAST_CLOCK_SETTINGS = {
    {"BENCHDASH_REQUEUE_EVERY": "REQUEUE_EVERY_S"}.get(name, name.removeprefix("BENCHDASH_")): int(value)
    for name, value in FAST_CLOCKS.items()
}
# A worker runs Django's system checks at every start, and the tests start dozens of workers. The suite runs them
# once (tests/test_system_checks.py).
NO_SYSTEM_CHECKS = {"CELERY_SKIP_CHECKS": "1"}


# A test that mostly waits (here, for a killed worker's trial to be found lost, attempt after attempt) goes first.
# Collected in place, it fell at the end of a pytest worker's share and was the run's last test, alone with the CPU
# idle; first, it waits beside the others' work.
WAITING_FIRST = {QUEUE_TESTS / "test_worker_lost_at_the_cap.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every queue test's local target shares the session's pristine data (tests/sshd.py); WAITING_FIRST first."""
    for item in items:
        if Path(item.path).is_relative_to(QUEUE_TESTS):
            item.add_marker(pytest.mark.shared_pristine_data)
    items.sort(key=lambda item: Path(item.path) not in WAITING_FIRST)


def test_broker_url() -> str:
    base = settings.REDIS_URL.rsplit("/", 1)[0]
    return f"{base}/{TEST_REDIS_DB}"


test_broker_url.__test__ = False  # type: ignore[attr-defined]


# Where this process's tasks go outside the tests that give it a broker: nowhere (kombu's in-memory transport, which
# no worker reads). Not Redis's db 0: that is the checkout's own queue, whose `make run` worker would take a test's
# run_study_trial or clear_study_clusters to the member's store, where the test databases' ids mean other rows.
TASK_SINK = "memory://"


def point_app_at(url: str) -> str:
    """Send this process's tasks to the broker at url."""
    app.conf.broker_url = url
    app.conf.result_backend = "cache+memory://" if url == TASK_SINK else url
    # Drop pools made for another broker URL, if anything sent a task before.
    app._pool = None
    app.amqp._producer_pool = None
    return url


@pytest.fixture
def broker(request: pytest.FixtureRequest, shared_worker_session: "SharedWorker") -> Iterator[str]:
    """Point this process's Celery app at the test Redis db, emptied first, and at TASK_SINK again after the test.
    The session's shared worker stops unless the test uses it: it would take the test's tasks from its own workers."""
    if "shared_worker" not in request.fixturenames:
        shared_worker_session.stop()
    url = test_broker_url()
    redis.Redis.from_url(url).flushdb()
    yield point_app_at(url)
    point_app_at(TASK_SINK)


class RedisServer:
    """A redis-server of the test's own, on a free port, which the test may stop and start again.

    Never the shared one: others' brokers live there. Its data survives a restart (append-only file)
    unless the restart is asked to drop it.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)]
        argv += ["--save", "", "--appendonly", "yes", "--appendfsync", "always"]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def answers(self) -> bool:
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=1).ping())
        except redis.ConnectionError:
            return False

    def stop(self, *, keep_data: bool = True) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: Redis flushes its append-only file and exits
            self.process.wait(timeout=30)
        if not keep_data:
            for path in self.directory.iterdir():
                shutil.rmtree(path) if path.is_dir() else path.unlink()

    def restart(self, *, keep_data: bool) -> None:
        self.stop(keep_data=keep_data)
        self.start()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of the test's own, started; this process's Celery app sends there."""
    directory = tmp_path / "redis"
    directory.mkdir()
    server = RedisServer(directory)
    server.start()
    point_app_at(server.url)
    yield server
    point_app_at(TASK_SINK)
    server.stop(keep_data=False)


def var_of_its_own(var: Path) -> dict[str, str]:
    """The settings of a process whose var/ is var, raw files there too: the pytest worker's own media folder, which
    every process it starts inherits (BENCHDASH_MEDIA_ROOT, tests/conftest.py), would win over var/media."""
    return {"BENCHDASH_VAR_DIR": str(var), "BENCHDASH_MEDIA_ROOT": str(var / "media")}


def worker_env(broker_url: str, **changes: str) -> dict[str, str]:
    urls = {"DATABASE_URL": store_url(connection.settings_dict["NAME"]), "REDIS_URL": broker_url}
    return {**os.environ, **FAST_CLOCKS, **NO_SYSTEM_CHECKS, **urls, **changes}


class Processes:
    """Celery processes started by a test, each in its own process group, stopped at the end.

    env changes the environment of the processes started after it is set (settings such as the clocks).
    """

    def __init__(self, broker_url: str, log_dir: Path) -> None:
        self.broker_url = broker_url
        self.log_dir = log_dir
        self.started: list[CeleryProcess] = []
        self.env: dict[str, str] = {}

    def worker(self, name: str, concurrency: int = 1) -> CeleryProcess:
        argv = [CELERY, "-A", "benchdash", "worker", "--loglevel", "INFO", "--concurrency", str(concurrency)]
        argv += ["--hostname"]
        argv += [f"{name}@%h", "--without-gossip", "--without-mingle"]
        return self.start(name, argv, ready="ready.")

    def beat(self) -> CeleryProcess:
        argv = [CELERY, "-A", "benchdash", "beat", "--loglevel", "INFO", "--schedule", str(self.log_dir / "beat")]
        return self.start("beat", argv, ready="beat: Starting")

    def start(self, name: str, argv: list[str], ready: str) -> CeleryProcess:
        log = self.log_dir / f"{name}.log"
        process = CELERY_FORKS.start(argv, worker_env(self.broker_url, **self.env), ROOT, log)
        self.started.append(process)
        deadline = time.monotonic() + 60
        while ready not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        return process

    def kill(self, process: CeleryProcess, sig: int = signal.SIGKILL) -> None:
        """Signal the whole group: the worker and its pool process, as a lost machine would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        process.wait(timeout=30)

    def log(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop_all(self) -> None:
        """SIGKILL to every group, busy or not: the test has its answer, and a warm shutdown cost each worker seconds
        of waiting and CPU (docs/BENCHMARKS.md), for what it still held (a retry waiting out its
        countdown, a duplicate the study no longer needs, in a failed test a trial). What a killed trial leaves
        running on a target, the next attempt there stops first (as after any lost worker); the local target's work
        dir goes with its test, and a server whose data directory is gone stops itself within a minute."""
        for process in self.started:
            if process.poll() is None:
                self.kill(process)


@pytest.fixture
def celery_processes(broker: str, tmp_path: Path) -> Iterator[Processes]:
    processes = Processes(broker, tmp_path)
    yield processes
    processes.stop_all()


# What a worker logs as a task arrives, and as it ends (succeeded, raised, retry...): "Task <name>[<id>] <event>".
TASK_EVENT = re.compile(r"Task [\w.]+\[([0-9a-f-]+)\] (\w+)")


def tasks_in_hand(log: str) -> set[str]:
    """The ids of the tasks a worker received and has not ended, by its log (a retried task is received again)."""
    last_event = dict(TASK_EVENT.findall(log))
    return {task_id for task_id, event in last_event.items() if event == "received"}


class SharedWorker:
    """One worker for the session's queue tests that neither kill it nor change its settings (starting one costs
    seconds). It serves every host, as `make run`'s does; each test still brings its own hosts, studies and broker
    contents (`broker` empties its Redis db), and a worker still busy when its test ends is stopped: nothing of one
    test runs on into the next."""

    SETTLE_S = 10

    def __init__(self, processes: Processes) -> None:
        self.processes = processes
        self.name = f"shared-gw{XDIST_WORKER}"
        self.process: CeleryProcess | None = None

    def ensure_started(self) -> None:
        if self.process is None or self.process.poll() is not None:
            self.process = self.processes.worker(self.name)

    def settle(self) -> None:
        """Wait for the worker to end its tasks; stop it when it does not within SETTLE_S."""
        deadline = time.monotonic() + self.SETTLE_S
        while tasks_in_hand(self.log()) and time.monotonic() < deadline:
            time.sleep(0.2)
        if tasks_in_hand(self.log()):
            self.stop()

    def stop(self) -> None:
        if self.process is not None:
            self.processes.kill(self.process)
            self.process = None

    def log(self) -> str:
        return self.processes.log(self.name)


@pytest.fixture(scope="session")
def shared_worker_session(
    django_db_setup: None, django_db_blocker, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedWorker]:
    """Set up after the test database, so stopped before it is dropped. The processes the tests started keep their
    connections to it as production's do (DATABASE_CONN_MAX_AGE), and DROP DATABASE refuses while one is open: what
    a killed process left is ended here (one run's teardown found two)."""
    processes = Processes(test_broker_url(), tmp_path_factory.mktemp("shared-worker"))
    # It lives on between its tests, beside other tests' committed rows (a transactional test's active study), which
    # are not its to put back or send: its own sweep for lost trials (benchdash/queue/sweep.py) waits an hour.
    processes.env = {"BENCHDASH_REQUEUE_EVERY": "3600"}
    yield SharedWorker(processes)
    processes.stop_all()
    # Clients only: an autovacuum worker on the database runs as a superuser, whom this role may not end (a fresh
    # clone's run failed so at teardown), and DROP DATABASE ends it itself.
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )


@pytest.fixture
def shared_worker(broker: str, transactional_db: None, shared_worker_session: SharedWorker) -> Iterator[SharedWorker]:
    """The session's worker, started at first use (on the test database: hence a transactional test), idle again
    before the test's rows are flushed."""
    shared_worker_session.ensure_started()
    yield shared_worker_session
    shared_worker_session.settle()


@pytest.fixture
def member(member: User, client) -> User:
    """tests/conftest.py's member, reading the pages in English."""
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return member


@pytest.fixture
def presets() -> dict[str, Scenario]:
    """The seeds' scenarios and study presets, as load_presets writes them (without its published history: 0.4 s a
    test that none of these reads)."""
    presets_sync()
    return {scenario.slug: scenario for scenario in Scenario.objects.all()}


@pytest.fixture
def own_redis_processes(redis_server: RedisServer, tmp_path: Path) -> Iterator[Processes]:
    """Celery processes on the test's own Redis (redis_server), which the test may restart."""
    processes = Processes(redis_server.url, tmp_path)
    yield processes
    processes.stop_all()


@pytest.fixture
def tasks_in_process(broker: str, transactional_db: None, settings) -> Iterator[Callable[..., TasksInProcess]]:
    """Start a thread of this process that runs the tasks sent to the test's broker (tests/queue/in_process.py), under
    the queue tests' fast clocks; `beat=True` sends beat's sweep through the broker as beat would. Stopped, its task
    ended, before the test's rows are flushed."""
    for name, value in FAST_CLOCK_SETTINGS.items():
        setattr(settings, name, value)
    started: list[TasksInProcess] = []

    def start(*, beat: bool = False) -> TasksInProcess:
        started.append(TasksInProcess(broker, beat_every_s=settings.REQUEUE_EVERY_S if beat else None).start())
        return started[-1]

    yield start
    for tasks in started:
        tasks.stop()
