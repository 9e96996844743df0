"""What a cluster's making and a server's start and stop cost on the host `local`: the machine's busy CPU (the server
runs detached, so no rusage of this process sees it) and the wall time, medians over rounds. Every trial that resets
its data stops its server and starts it again; every cluster without pristine data to copy runs initdb.

Usage (as root, or as a worker's account with its sudoers rule; on an otherwise idle machine, since the busy time
counted is the whole machine's):
    .venv/bin/python bench/server_cycle.py [--rounds 7] [--cycles 5]
"""

from __future__ import annotations

import argparse
import os
import posixpath
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scratch import local_scratch_dir  # noqa: E402
from bench.timing import medians, timed  # noqa: E402
from workers.builds import install_build  # noqa: E402
from workers.cluster import Cluster  # noqa: E402
from workers.local_transport import LocalTransport  # noqa: E402
from workers.spec import BuildSpec, HostSpec  # noqa: E402


def busy_s() -> float:
    """Seconds of CPU the whole machine has spent busy since boot (/proc/stat: user, nice, system, irq, softirq)."""
    user, nice, system, _idle, _iowait, irq, softirq = map(int, Path("/proc/stat").read_text().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cycles", type=int, default=5, help="starts and stops a round")
    parser.add_argument("--bin-dir", default="/usr/lib/postgresql/15/bin")
    args = parser.parse_args()
    with local_scratch_dir("cycle") as work_dir:
        transport = LocalTransport(HostSpec(name="local", work_dir=work_dir))
        installed = install_build(transport, BuildSpec(name="pg", kind="installed", bin_dir=args.bin_dir))
        cluster = Cluster(transport, installed, posixpath.join(work_dir, "clusters", "bench", "data"))

        def cycles() -> None:
            for _ in range(args.cycles):
                cluster.start()
                cluster.stop()

        times: dict[str, list[tuple[float, float]]] = {"initdb": [], "a start and a fast stop": []}
        for _ in range(args.rounds):
            times["initdb"].append(timed(cluster.initdb, busy_s))
            wall, busy = timed(cycles, busy_s)
            times["a start and a fast stop"].append((wall / args.cycles, busy / args.cycles))
        print(f"{args.rounds} rounds; PostgreSQL {installed.version}, a new data directory each round\n")
        print("| what | wall ms (median) | busy CPU ms, whole machine (median) |\n| --- | ---: | ---: |")
        for label, pairs in times.items():
            wall, busy = medians(pairs)
            print(f"| {label} | {wall * 1000:.0f} | {busy * 1000:.0f} |")


if __name__ == "__main__":
    main()
