"""What one Celery worker costs a queue test, from start to stop: as tests/queue/conftest.py started and stopped them
before (Django's system checks at start, a warm shutdown by SIGTERM at the end) and as it does now (the checks
skipped, CELERY_SKIP_CHECKS; SIGKILL to the group).

Usage (with the store and Redis of `make run` or `make test` up):  .venv/bin/python bench/celery_worker_start.py
[--rounds 9]

Each round starts one worker of each kind, taking turns, so that the machine's load falls on both alike. A worker
counts as started when its log says "ready."; it is stopped a second later. Prints the medians of the time to
ready, the time to stop, and the CPU time (user + system) of the worker's main process (its pool process included
where the main process reaps it, as a warm shutdown does) in a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CELERY = str(Path(sys.executable).with_name("celery"))
ARGV = [CELERY, "-A", "benchdash", "worker", "--loglevel", "INFO", "--concurrency", "1", "--hostname", "bench@%h"]
ARGV += ["--without-gossip", "--without-mingle"]
BENCH_REDIS_DB = 15  # a Redis db no one sends to, and a host no one registers: the worker starts, idles and stops
KINDS = {
    "checks at start, SIGTERM (before)": ({}, signal.SIGTERM),
    "checks skipped, SIGKILL (now)": ({"CELERY_SKIP_CHECKS": "1"}, signal.SIGKILL),
}


def idle_worker_env() -> dict[str, str]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchdash.settings")
    from django.conf import settings

    redis_url = f"{settings.REDIS_URL.rsplit('/', 1)[0]}/{BENCH_REDIS_DB}"
    return {**os.environ, "REDIS_URL": redis_url, "BENCHDASH_WORKER_HOSTS": "bench-no-such-host"}


def one_worker(env: dict[str, str], stop_signal: int, log: Path) -> tuple[float, float, float]:
    """Seconds to ready, seconds to stop, CPU seconds of the main process."""
    with log.open("wb") as output:
        started = time.perf_counter()
        worker = subprocess.Popen(
            ARGV, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    while b"ready." not in log.read_bytes():
        if worker.poll() is not None:
            sys.exit(f"the worker did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.02)
    ready = time.perf_counter() - started
    time.sleep(1)
    stopping = time.perf_counter()
    os.killpg(worker.pid, stop_signal)
    _, _, usage = os.wait4(worker.pid, 0)
    stopped = time.perf_counter() - stopping
    return ready, stopped, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    measured: dict[str, list[tuple[float, float, float]]] = {name: [] for name in KINDS}
    idle = idle_worker_env()
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(args.rounds):
            for name, (env_changes, stop_signal) in KINDS.items():
                measured[name].append(one_worker({**idle, **env_changes}, stop_signal, Path(directory) / "worker.log"))
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} workers of each kind, taking turns\n")
    print("| worker | to ready, s (median) | to stop, s (median) | CPU of the main process, s (median) |")
    print("| --- | ---: | ---: | ---: |")
    for name, runs in measured.items():
        ready, stop, cpu = (statistics.median(run[column] for run in runs) for column in range(3))
        print(f"| {name} | {ready:.2f} | {stop:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
