"""The tasks sent to the test's broker, run in the test's own process: a thread takes each message from its Redis queue
and runs the task's body by Celery's `task.apply()`, on the real store, as a worker would run it.

For the queue tests whose point is the store's rules (the attempt cap, retries, reruns, a study stopped for its
storage): a worker process proves nothing more there, and each costs seconds of CPU to start (Django, Celery, a pool).
The tests about workers themselves (lost, killed, a pool process gone, the broker or the store away, two at once)
keep real ones (tests/queue/conftest.py's `celery_processes`, `shared_worker`).

What a worker adds that this does not: acks_late and the visibility timeout (a message is taken and acknowledged at
once), the pool and its time limits, the worker's own sweep thread. Beat's sweep is sent through the broker every
REQUEUE_EVERY_S when asked (`beat=True`), as beat sends it.
"""

import logging
import threading
import time
from dataclasses import dataclass

import redis
from django.db import connections
from kombu import Connection

from benchdash.celery import app
from benchdash.queue.tasks import requeue_orphaned_studies

logger = logging.getLogger(__name__)
# kombu's Redis transport keeps a queue's messages of priority above 0 under "<queue>\x06\x16<priority>".
PRIORITY_SEPARATOR = "\x06\x16"


@dataclass(frozen=True)
class TaskRun:
    """One task the thread ran: its name, arguments and the state apply() ended in (SUCCESS, FAILURE...)."""

    name: str
    args: tuple
    kwargs: dict
    state: str


class TasksInProcess:
    """A thread that runs the tasks sent to broker_url one at a time, until stopped."""

    IDLE_WAIT_S = 0.1

    def __init__(self, broker_url: str, *, beat_every_s: float | None = None) -> None:
        self.broker_url = broker_url
        self.beat_every_s = beat_every_s
        self.runs: list[TaskRun] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="tasks-in-process", daemon=True)

    def start(self) -> "TasksInProcess":
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 120) -> None:
        """Stop once the task in hand (if any) has ended."""
        self._stopping.set()
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            raise AssertionError(f"a task run in process did not end within {timeout_s} s of the test's end")

    def ran(self, name: str) -> list[TaskRun]:
        return [run for run in self.runs if run.name == name]

    def _serve(self) -> None:
        next_beat = time.monotonic()
        try:
            with Connection(self.broker_url) as connection:
                while not self._stopping.is_set():
                    if self.beat_every_s is not None and time.monotonic() >= next_beat:
                        requeue_orphaned_studies.apply_async(ignore_result=True)
                        next_beat = time.monotonic() + self.beat_every_s
                    if not self._run_one(connection):
                        self._stopping.wait(self.IDLE_WAIT_S)
        finally:
            connections.close_all()  # this thread's own: the test database is flushed, then dropped, after

    def _run_one(self, connection: Connection) -> bool:
        """Take one message from any queue that holds one and run its task; False when every queue was empty."""
        for queue in self._queues_with_messages():
            with connection.SimpleQueue(queue, no_ack=True) as simple:
                try:
                    message = simple.get(block=False)
                except simple.Empty:
                    continue
            name = message.headers["task"]
            args, kwargs, _ = message.decode()
            result = app.tasks[name].apply(args, kwargs, task_id=message.headers["id"])
            self.runs.append(TaskRun(name, tuple(args), dict(kwargs), result.state))
            if result.state != "SUCCESS":
                logger.warning("task %s%s ended %s: %r", name, tuple(args), result.state, result.result)
            return True
        return False

    def _queues_with_messages(self) -> list[str]:
        broker = redis.Redis.from_url(self.broker_url)
        keys = [key.decode() for key in broker.keys("*") if broker.type(key) == b"list"]
        return sorted({key.split(PRIORITY_SEPARATOR)[0] for key in keys if not key.startswith("_kombu")})
