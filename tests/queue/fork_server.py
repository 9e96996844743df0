"""A fork server for the queue tests' Celery processes: one Python per pytest worker that imported Celery's, Django's
and the engine's libraries once, and forks each worker and beat the tests start.

Started as the `celery` command, a worker spends about 0.8 s of CPU before it says "ready.", most of it importing;
the tests start about a hundred. Forked from this server it spends about 0.2 s (docs/BENCHMARKS.md). What runs in the
fork is Celery's own command line (`celery.bin.celery.main`) with the test's argv, environment and working directory,
in a session of its own, as the command would run: the server imports nothing that reads a setting (Django's
settings, the app and its tasks are imported in the fork, from the fork's environment), starts no thread, and leaves
the fork none of its file descriptors.

The server reads one JSON request a line on stdin and answers one JSON line on stdout:
  {"fork": [argv...], "env": {...}, "cwd": "...", "log": "..."}  ->  {"pid": N}
  {"poll": N}  ->  {"returncode": None, or as subprocess's: the exit code, or minus the signal that ended it}
It reaps its forks when asked about them; it ends when its stdin closes (its pytest worker ended).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import random
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What a worker and beat import before they read a setting, the engine's modules included (workers/ reads no
# setting on import). Nothing of benchdash's: its settings are read as it is imported.
PRELOADED = (
    "celery.bin.celery",
    "celery.apps.worker",
    "celery.apps.beat",
    "celery.concurrency.prefork",
    "celery.worker.consumer.consumer",
    "kombu.transport.redis",
    "redis",
    "psycopg",
    "paramiko",
    "django.db.models",
    "django.db.backends.postgresql.base",
    "django.http",
    "django.urls",
    "django.forms",
    "django.contrib.admin",
    "django.core.serializers.json",
    "workers.runner",
    "workers.preflight",
    "workers.source_build",
)


class ForkedProcess:
    """A process the fork server started, as much of subprocess.Popen as the tests use: pid, poll, wait."""

    def __init__(self, server: ForkServer, pid: int) -> None:
        self.server = server
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.server.ask({"poll": self.pid})["returncode"]
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"forked process {self.pid}", timeout or 0)
            time.sleep(0.02)
        return self.returncode  # type: ignore[return-value]


# A Celery process a test started: forked, or the command itself.
CeleryProcess = ForkedProcess | subprocess.Popen


class ForkServer:
    """The test's side: the server, started at the first fork and ended with this pytest worker."""

    def __init__(self) -> None:
        self.server: subprocess.Popen | None = None
        self.lock = threading.Lock()

    def start(self, argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> CeleryProcess:
        """Run Celery's command line with argv (argv[0] the command) in a fork, its output to log; as the command
        itself when env changes how Python starts (PYTHONPATH to a sitecustomize that skews the clock or quickens
        the transport's notice), which the server's Python did long before."""
        if python_start(env) != python_start(os.environ):
            return started_as_a_command(argv, env, cwd, log)
        log.write_bytes(b"")  # there when start returns, as the command's is: the caller reads it for "ready."
        answer = self.ask({"fork": argv, "env": env, "cwd": str(cwd), "log": str(log)})
        return ForkedProcess(self, answer["pid"])

    def ask(self, request: dict) -> dict:
        with self.lock:
            server = self.running()
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
            line = server.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server ended (exit code {server.poll()})")
        return json.loads(line)

    def running(self) -> subprocess.Popen:
        if self.server is None or self.server.poll() is not None:
            argv = [sys.executable, __file__]
            self.server = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self.server

    def close(self) -> None:
        if self.server is not None:
            self.server.stdin.close()  # type: ignore[union-attr]
            self.server.wait(timeout=30)


# Every Celery process of this pytest worker's tests (one instance, here: tests/queue/conftest.py is imported under two
# names, `conftest` by pytest and `tests.queue.conftest` by the tests that import from it).
CELERY_FORKS = ForkServer()


def started_as_a_command(argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> subprocess.Popen:
    """The command itself, in a session of its own, its output to log."""
    with log.open("wb") as output:
        return subprocess.Popen(argv, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)


def python_start(env: Mapping[str, str]) -> dict[str, str]:
    """The variables that Python reads as it starts."""
    return {name: value for name, value in env.items() if name.startswith("PYTHON")}


def serve() -> None:
    """The server's side: import, then fork and reap as asked until stdin closes."""
    # As the `celery` script's, the first entry of the path is the venv's bin directory, not tests/queue; the
    # checkout comes next, as Celery puts its working directory there to find the app.
    sys.path[0:1] = [str(Path(sys.executable).parent), str(ROOT)]
    for name in PRELOADED:
        importlib.import_module(name)
    gc.freeze()  # what was imported stays out of the forks' collections, which would copy every page they touch
    answers = os.dup(sys.stdout.fileno())
    for line in sys.stdin:
        request = json.loads(line)
        answer = {"pid": fork(request)} if "fork" in request else {"returncode": reaped(request["poll"])}
        os.write(answers, (json.dumps(answer) + "\n").encode())


def reaped(pid: int) -> int | None:
    """The fork's exit code once it ended, reaped then (ForkedProcess keeps it: it is asked no more)."""
    done, status = os.waitpid(pid, os.WNOHANG)
    return os.waitstatus_to_exitcode(status) if done else None


def fork(request: dict) -> int:
    pid = os.fork()
    if pid == 0:
        run_celery(request)  # never returns
    return pid


def run_celery(request: dict) -> None:
    """In the fork: become the command the request names, then exit as it exits."""
    code = 1
    try:
        os.setsid()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        own_standard_streams(request["log"])
        sys.argv = request["fork"]
        random.seed()  # the server's state, copied into every fork, would repeat in each
        from celery.bin.celery import main

        main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # noqa: BLE001 (reported in the log, as an uncaught exception would be)
        traceback.print_exc()
    finally:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def own_standard_streams(log: str) -> None:
    """stdin from /dev/null, stdout and stderr to the log, and no other descriptor of the server's."""
    null = os.open(os.devnull, os.O_RDONLY)
    output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115


if __name__ == "__main__":
    serve()
