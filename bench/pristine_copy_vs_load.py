"""A new study's cluster: its data copied from the host's pristine data vs made again by initdb and `pgbench -i`.

Usage:  .venv/bin/python bench/pristine_copy_vs_load.py [--scales 10 50] [--runs 3] [--bin-dir DIR]
        (DIR: the PostgreSQL bin directory, /usr/lib/postgresql/15/bin by default)

On the local host (through LocalTransport, as the unprivileged run user when we are root), for each scale: one
cluster made first, which keeps the pristine data (workers/pristine.py); then `runs` rounds, each making the cluster
of a new study both ways in turn (interleaved, the order alternating every round), each ending with a running server
holding fresh data, through the engine's own prepare_cluster:
  copy:  reset_method "restore" (the default): the pristine data copied in, configured, started
  load:  reset_method "init": initdb, configure, start, pgbench -i (what every new study did before)
Prints a Markdown table for docs/BENCHMARKS.md.
"""

import itertools
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reset_restore_vs_init import data_arguments  # noqa: E402 (after the path set-up)

from tests.sshd import local_work_dir  # noqa: E402
from workers.spec import BuildSpec, HostSpec, Reset, ScenarioSpec, TrialSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402
from workers.trial_cluster import prepare_cluster  # noqa: E402

STUDY_IDS = itertools.count(1)


def _spec(host: HostSpec, build: BuildSpec, scale: int) -> TrialSpec:
    """The first trial of a new study: no data of its own yet on the host."""
    scenario = ScenarioSpec(slug="bench", builtin="select-only", reset=Reset.ONCE)
    return TrialSpec(
        trial_id=1,
        study_id=next(STUDY_IDS),
        db_host=host,
        client_host=host,
        build=build,
        scenario=scenario,
        clients=1,
        threads=1,
        duration_s=1,
        scale=scale,
        pg_settings={"autovacuum": "off"},
    )


def _new_cluster_s(transport: Transport, spec: TrialSpec, reset_method: str) -> float:
    started = time.perf_counter()
    cluster = prepare_cluster(transport, spec, reset_method=reset_method)
    seconds = time.perf_counter() - started
    cluster.stop()
    return seconds


def measure_scale(transport: Transport, build: BuildSpec, scale: int, runs: int) -> dict[str, list[float]]:
    host = transport.host
    _new_cluster_s(transport, _spec(host, build, scale), "restore")  # makes and keeps the pristine data
    times: dict[str, list[float]] = {"copy": [], "load": []}
    methods = {"copy": "restore", "load": "init"}
    for run in range(runs):
        for method in ["copy", "load"] if run % 2 == 0 else ["load", "copy"]:
            times[method].append(_new_cluster_s(transport, _spec(host, build, scale), methods[method]))
            print(f"  scale {scale} run {run + 1} {method}: {times[method][-1]:.2f}s", file=sys.stderr)
    transport.run(["rm", "-rf", f"{host.work_dir}/clusters", f"{host.work_dir}/pristine"])
    return times


def _spread(seconds: list[float]) -> str:
    return f"{statistics.median(seconds):.2f} ({min(seconds):.2f}..{max(seconds):.2f})"


def main() -> None:
    args = data_arguments(__doc__)
    work_dir = local_work_dir("benchdash-bench-pristine-")
    build = BuildSpec(name="bench", kind="installed", bin_dir=args.bin_dir)
    try:
        with connect(HostSpec(name="local", work_dir=work_dir)) as transport:
            print(f"{os.cpu_count()} CPUs, {args.runs} runs each, interleaved\n")
            print("| scale | copy of the pristine data, median (min..max) s ", end="")
            print("| initdb + pgbench -i, median (min..max) s | load / copy |\n| ---: | ---: | ---: | ---: |")
            for scale in args.scales:
                times = measure_scale(transport, build, scale, args.runs)
                copy, load = statistics.median(times["copy"]), statistics.median(times["load"])
                print(f"| {scale} | {_spread(times['copy'])} | {_spread(times['load'])} | {load / copy:.1f} |")
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
