"""Data reset between trials: restoring a snapshot of the data directory vs running `pgbench -i` again.

Usage:  .venv/bin/python bench/reset_restore_vs_init.py [--scales 10 50] [--runs 3] [--bin-dir DIR]
        (DIR: the PostgreSQL bin directory, /usr/lib/postgresql/15/bin by default)

On the local host (through LocalTransport, as the unprivileged run user when we are root), for each
scale: initdb, start, pgbench -i, snapshot; then `runs` rounds, each timing both resets in turn
(interleaved, the order alternating every round), each reset ending with a running server holding
fresh data:
  restore:  Cluster.restore_snapshot()  = stop, rm -rf data, cp -a snapshot data, start
  init:     Cluster.pgbench_init(scale) = pgbench -i on the running server
Prints a Markdown table for docs/BENCHMARKS.md.
"""

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.sshd import local_work_dir  # noqa: E402 (after the path set-up)
from workers.builds import install_build  # noqa: E402
from workers.cluster import Cluster  # noqa: E402
from workers.spec import BuildSpec, HostSpec  # noqa: E402
from workers.transport import connect  # noqa: E402


def data_arguments(doc: str) -> argparse.Namespace:
    """--scales, --runs and --bin-dir, for the benchmarks of making data (this one, pristine_copy_vs_load.py)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bin-dir", default="/usr/lib/postgresql/15/bin")
    return parser.parse_args()


def _work_dir() -> str:
    return local_work_dir("benchdash-bench-reset-")


def _timed(action) -> float:  # noqa: ANN001
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _spread(seconds: list[float]) -> str:
    return f"{statistics.median(seconds):.2f} ({min(seconds):.2f}..{max(seconds):.2f})"


def measure_scale(cluster: Cluster, scale: int, runs: int) -> dict[str, list[float]]:
    cluster.initdb()
    cluster.configure({"autovacuum": "off"})
    cluster.start()
    cluster.pgbench_init(scale)
    cluster.snapshot()
    times: dict[str, list[float]] = {"restore": [], "init": []}
    methods = {"restore": cluster.restore_snapshot, "init": lambda: cluster.pgbench_init(scale)}
    for run in range(runs):
        order = ["restore", "init"] if run % 2 == 0 else ["init", "restore"]
        for method in order:
            times[method].append(_timed(methods[method]))
            print(f"  scale {scale} run {run + 1} {method}: {times[method][-1]:.2f}s", file=sys.stderr)
    size = cluster.psql("SELECT pg_size_pretty(pg_database_size(current_database()));").strip()
    cluster.stop()
    cluster.transport.run(["rm", "-rf", cluster.cluster_dir])
    return {**times, "size": size}  # type: ignore[dict-item]


def main() -> None:
    args = data_arguments(__doc__)
    work_dir = _work_dir()
    try:
        with connect(HostSpec(name="local", work_dir=work_dir)) as transport:
            installed = install_build(transport, BuildSpec(name="bench", kind="installed", bin_dir=args.bin_dir))
            print(f"PostgreSQL {installed.version}, {os.cpu_count()} CPUs, {args.runs} runs each, interleaved\n")
            print(
                "| scale | database size | restore snapshot, median (min..max) s | pgbench -i, median (min..max) s ",
                end="",
            )
            print("| init / restore |")
            print("| ---: | ---: | ---: | ---: | ---: |")
            for scale in args.scales:
                cluster = Cluster(transport, installed, f"{work_dir}/clusters/s{scale}/data")
                times = measure_scale(cluster, scale, args.runs)
                restore, init = statistics.median(times["restore"]), statistics.median(times["init"])
                print(f"| {scale} | {times['size']} | {_spread(times['restore'])} | {_spread(times['init'])} ", end="")
                print(f"| {init / restore:.2f} |")
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
