"""What one Celery worker of the queue tests costs until it is ready: started as the `celery` command (as
tests/queue/conftest.py started them before), and forked by tests/queue/fork_server.py from a Python that imported
Celery's, Django's and the engine's libraries once (as it starts them now).

Usage (with the store and Redis of `make run` or `make test` up):  .venv/bin/python bench/celery_worker_start.py
[--rounds 9]

Each round starts one worker of each kind, taking turns, so that the machine's load falls on both alike; both skip
Django's system checks (CELERY_SKIP_CHECKS), as the tests' do. A worker counts as started when its log says
"ready."; its CPU time (user + system) is then read from /proc for every process of its session (the main process
and its pool process), and the session is killed. Prints the medians of the time to ready and of that CPU time in a
Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.queue.fork_server import CeleryProcess, ForkServer, started_as_a_command  # noqa: E402

CELERY = str(Path(sys.executable).with_name("celery"))
ARGV = [CELERY, "-A", "benchdash", "worker", "--loglevel", "INFO", "--concurrency", "1", "--hostname", "bench@%h"]
ARGV += ["--without-gossip", "--without-mingle"]
BENCH_REDIS_DB = 15  # a Redis db no one sends to, and a host no one registers: the worker starts, idles and stops
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def idle_worker_env() -> dict[str, str]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchdash.settings")
    from django.conf import settings

    redis_url = f"{settings.REDIS_URL.rsplit('/', 1)[0]}/{BENCH_REDIS_DB}"
    return {
        **os.environ,
        "REDIS_URL": redis_url,
        "BENCHDASH_WORKER_HOSTS": "bench-no-such-host",
        "CELERY_SKIP_CHECKS": "1",
    }


def session_cpu_s(session: int) -> float:
    """User and system seconds of the live processes of a session."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == session:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / TICKS_PER_S


def one_worker(start: Callable[[Path], CeleryProcess], log: Path) -> tuple[float, float]:
    """Seconds to ready, CPU seconds of the worker's session by then."""
    started = time.perf_counter()
    worker = start(log)
    while b"ready." not in log.read_bytes():
        if worker.poll() is not None:
            sys.exit(f"the worker did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.02)
    ready = time.perf_counter() - started
    cpu = session_cpu_s(worker.pid)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    return ready, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    env = idle_worker_env()
    forks = ForkServer()
    kinds: dict[str, Callable[[Path], CeleryProcess]] = {
        "the celery command (before)": lambda log: started_as_a_command(ARGV, env, ROOT, log),
        "forked by the fork server (now)": lambda log: forks.start(ARGV, env, ROOT, log),
    }
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(args.rounds):
            for name, start in kinds.items():
                measured[name].append(one_worker(start, Path(directory) / "worker.log"))
    forks.close()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} workers of each kind, taking turns\n")
    print("| worker | to ready, s (median) | CPU of its processes by then, s (median) |\n| --- | ---: | ---: |")
    for name, runs in measured.items():
        ready, cpu = (statistics.median(run[column] for run in runs) for column in range(2))
        print(f"| {name} | {ready:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
