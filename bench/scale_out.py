"""Scale-out: 3 studies on 3 hosts with 2 workers at once, against the same 3 studies one after another.

Usage:  .venv/bin/python bench/scale_out.py [--duration 10] [--clients 1,2] [--repetitions 2]

The set-up of deploy/SCALE-OUT.md and tests/queue/test_scale_out.py (tests/queue/scale_out.py): 3 targets,
each its own sshd on a loopback port with its own user and work dir; one store (a database of the bench's own,
bench_scale_out, made fresh) and one Redis (db 13). Each study: pgbench-select-only, the given client levels x
repetitions, scale 1, no sar or wait events.

1. One after another: one worker process (concurrency 1) serving the 3 hosts; the 3 studies queued at once run
   one after another, as with one worker machine.
2. Side by side: 2 workers, west serving target-1 and target-2 (concurrency 2), east serving target-2 and
   target-3 (concurrency 2); the same 3 studies queued again.

Wall time: from the first trial's start to the last trial's finish. Goal: side by side at most 0.45 of one
after another.
"""

import argparse
import sys
import tempfile
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from servers import queue_store  # noqa: E402
from study_throughput import wait_all  # noqa: E402

BENCH_DB = "bench_scale_out"
REDIS_DB = 13
GOAL = 0.45


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--clients", default="1,2")
    parser.add_argument("--repetitions", type=int, default=2)
    return parser.parse_args()


def queue(host: str, args: argparse.Namespace) -> int:
    from django.core.management import call_command

    out = StringIO()
    call_command(
        "queue_study", "--host", host, "--builds", "15", "--scenarios", "pgbench-select-only",
        "--clients", args.clients, "--repetitions", str(args.repetitions), "--duration", str(args.duration),
        "--scale", "1", "--no-sar", "--no-wait-events", "--title", f"scale-out on {host}", stdout=out,
    )  # fmt: skip
    return int(out.getvalue().strip())


def run_studies(processes, workers: dict[str, tuple[tuple[str, ...], int]], args: argparse.Namespace) -> float:
    """Start these workers (name -> hosts served, concurrency), queue one study per target, wait; the wall time."""
    from tests.queue.scale_out import TARGETS

    started = []
    for name, (hosts, concurrency) in workers.items():
        processes.env = {"BENCHDASH_WORKER_HOSTS": ",".join(hosts)}
        started.append(processes.worker(name, concurrency))
    try:
        return wait_all([queue(host, args) for host in TARGETS])
    finally:
        for worker in started:
            processes.kill(worker, 15)


def main() -> None:
    args = arguments()
    broker = queue_store(BENCH_DB, REDIS_DB)
    from tests.queue.conftest import Processes
    from tests.queue.scale_out import SERVES, TARGETS, three_targets
    from tests.queue.support import register_host

    with three_targets() as servers, tempfile.TemporaryDirectory(prefix="bench-scale-out-") as logs:
        for server in servers:
            register_host(server.spec)
        processes = Processes(broker, Path(logs))
        try:
            serial = run_studies(processes, {"serial": (TARGETS, 1)}, args)
            print(f"1. one after another (1 worker, concurrency 1): wall {serial:.1f} s")
            side_by_side = run_studies(processes, {name: (hosts, 2) for name, hosts in SERVES.items()}, args)
        finally:
            processes.stop_all()
    ratio = side_by_side / serial
    serves = "; ".join(f"{name} serves {' and '.join(hosts)}" for name, hosts in SERVES.items())
    print(f"2. side by side (2 workers, concurrency 2; {serves}): wall {side_by_side:.1f} s")
    print(f"   ratio {ratio:.2f} (goal at most {GOAL})")


if __name__ == "__main__":
    main()
