"""Many studies queued at once: 100 short studies on 20 hosts, run by 4 workers; every trial once, none lost.

Usage:  .venv/bin/python bench/many_studies_at_once.py [--hosts 20] [--workers 4] [--studies 100] [--concurrency 5]

The set-up of tests/queue/test_many_studies_at_once.py at full size (tests/queue/many_studies.py): 20 targets, each
its own sshd on a loopback port with its own user and work dir; one store (a database of the bench's own,
bench_many_studies, made fresh) and one Redis (db 15). The studies (pgbench-select-only, 1 client, 1 repetition,
1 s, scale 1: one trial each, 5 on each host) are all queued before the workers start; the workers serve every host
(concurrency 5 each: 20 trials at once at most). Prints what became of the trials and the wall time from the first
trial's start to the last one's finish.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from servers import queue_store  # noqa: E402

BENCH_DB = "bench_many_studies"
REDIS_DB = 15


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--studies", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=5)
    return parser.parse_args()


def main() -> None:
    args = arguments()
    broker = queue_store(BENCH_DB, REDIS_DB)
    from tests.queue.conftest import Processes
    from tests.queue.many_studies import many_targets, outcome, queue_at_once, still_running
    from tests.queue.support import register_host

    with many_targets(args.hosts) as servers, tempfile.TemporaryDirectory(prefix="bench-many-studies-") as logs:
        hosts = [register_host(server.spec).name for server in servers]
        study_ids = queue_at_once(hosts, args.studies)
        processes = Processes(broker, Path(logs))
        processes.env = {"BENCHDASH_WORKER_HOSTS": ",".join(hosts)}
        try:
            for number in range(1, args.workers + 1):
                processes.worker(f"w{number}", args.concurrency)
            while still_running(study_ids):
                time.sleep(1)
        finally:
            processes.stop_all()
    print(f"{args.studies} studies on {args.hosts} hosts, {args.workers} workers of concurrency {args.concurrency}:")
    for name, value in outcome(study_ids).items():
        print(f"  {name}: {value}")
    print(f"load average (1, 5, 15 min): {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
