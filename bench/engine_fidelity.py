"""Fidelity: the same trial through benchdash (run_trial) and as a hand-run pgbench, interleaved.

Usage:  .venv/bin/python bench/engine_fidelity.py [--rounds 5] [--duration 15] [--clients 2]
        [--builtin select-only] [--scale 1] [--bin-dir /usr/lib/postgresql/15/bin]

On the local host: benchdash prepares the data once (a first, unreported trial). Then each round
runs both, the order alternating every round:
  benchdash:  run_trial(spec) = prepare (start, prewarm), pgbench in the background, stop
  by hand:    pg_ctl start; psql pg_prewarm; pgbench (the same argv, in the foreground); pg_ctl stop
on the same data directory with the same postgresql.conf. Prints a Markdown table: median TPS of
each and their ratio (goal 0.98..1.02).
"""

import argparse
import shlex
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.sshd import local_work_dir  # noqa: E402 (after the path set-up)
from workers.local_transport import local_run_user  # noqa: E402
from workers.pgbench import parse_pgbench_output  # noqa: E402
from workers.runner import run_trial  # noqa: E402
from workers.spec import BuildSpec, HostSpec, Prewarm, ScenarioSpec, TrialSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402
from workers.trial_cluster import cluster_dir  # noqa: E402

RUN_USER = local_run_user()


def arguments(description: str, duration_s: int = 15) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--clients", type=int, default=2)
    add_trial_options(parser, duration_s)
    return parser.parse_args()


def add_trial_options(parser: argparse.ArgumentParser, duration_s: int) -> None:
    """The options of the trial every engine bench runs (bench_spec): its length, workload, scale and build."""
    parser.add_argument("--duration", type=int, default=duration_s)
    parser.add_argument("--builtin", default="select-only")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--bin-dir", default="/usr/lib/postgresql/15/bin")


def work_dir(prefix: str) -> str:
    return local_work_dir(prefix)


@contextmanager
def removed_after(path: str) -> Iterator[None]:
    try:
        yield
    finally:
        shutil.rmtree(path, ignore_errors=True)


def bench_spec(
    host: HostSpec, options: argparse.Namespace, build: BuildSpec | None = None, **collect: bool
) -> TrialSpec:
    """The trial of the options, on options.bin_dir's installed build unless another build is given."""
    build = build or BuildSpec(name="bench-pg", kind="installed", bin_dir=options.bin_dir)
    scenario = ScenarioSpec(slug=f"pgbench-{options.builtin}", builtin=options.builtin, prewarm=Prewarm.TRIAL)
    return TrialSpec(
        trial_id=1,
        study_id=1,
        db_host=host,
        client_host=host,
        build=build,
        scenario=scenario,
        clients=options.clients,
        threads=max(1, options.clients // 2),
        duration_s=options.duration,
        scale=options.scale,
        collect_sar=collect.get("sar", False),
        collect_wait_events=collect.get("wait_events", False),
        prewarm=True,
    )


def benchdash_tps(spec: TrialSpec, transport: Transport) -> float:
    outcome = run_trial(spec, transport)
    if not outcome.ok or outcome.tps is None:
        raise SystemExit(f"benchdash trial failed: {outcome.error}")
    return outcome.tps


def hand_run_tps(spec: TrialSpec, command: str) -> float:
    """What a member would type: start the server, prewarm, the same pgbench line, stop."""
    cluster_path = cluster_dir(spec)
    argv = shlex.split(command)
    socket_dir, port = argv[argv.index("-h") + 1], argv[argv.index("-p") + 1]
    as_user = ["runuser", "-u", RUN_USER, "--"] if RUN_USER else []
    pg_ctl = [*as_user, f"{spec.build.bin_dir}/pg_ctl", "-D", f"{cluster_path}/data", "-w"]
    psql = [*as_user, f"{spec.build.bin_dir}/psql", "-X", "-q", "-h", socket_dir, "-p", port, "-U", "postgres"]
    start = [*pg_ctl, "-l", f"{cluster_path}/server.log", "-o", f"-p {port}", "start"]
    subprocess.run(start, check=True, capture_output=True)
    try:
        prewarm = "SELECT pg_prewarm('pgbench_accounts')"
        subprocess.run([*psql, "-d", "postgres", "-c", prewarm], check=True, capture_output=True)
        ran = subprocess.run([*as_user, *argv], capture_output=True, text=True, check=True)
    finally:
        subprocess.run([*pg_ctl, "-m", "fast", "stop"], check=True, capture_output=True)
    tps = parse_pgbench_output(ran.stdout, ran.stderr).tps
    assert tps is not None
    return tps


def interleave(rounds: int, first: Callable[[], float], second: Callable[[], float]) -> tuple[list[float], list[float]]:
    """rounds x (first, second), the order alternating each round so drift hits both alike."""
    results: tuple[list[float], list[float]] = ([], [])
    for number in range(rounds):
        order = [(0, first), (1, second)] if number % 2 == 0 else [(1, second), (0, first)]
        for index, action in order:
            results[index].append(action())
            print(f"  round {number + 1}: {'AB'[index]} {results[index][-1]:.1f} tps", file=sys.stderr)
    return results


def table(label_a: str, label_b: str, results: tuple[list[float], list[float]], goal: str) -> str:
    median_a, median_b = statistics.median(results[0]), statistics.median(results[1])
    # Rounds run back to back, so a per-round ratio is less exposed to load that drifts over minutes.
    pairs = [a / b for a, b in zip(*results, strict=True)]
    runs_a = ", ".join(f"{tps:.0f}" for tps in results[0])
    runs_b = ", ".join(f"{tps:.0f}" for tps in results[1])
    return "\n".join(
        [
            f"| | median TPS | runs (TPS) |\n| --- | --- | --- |\n| {label_a} | {median_a:.1f} | {runs_a} |",
            f"| {label_b} | {median_b:.1f} | {runs_b} |",
            f"\nratio {label_a} / {label_b}: **{median_a / median_b:.3f}** (goal {goal}); "
            f"median of the per-round ratios: {statistics.median(pairs):.3f} ({min(pairs):.3f}..{max(pairs):.3f})",
        ]
    )


def main() -> None:
    options = arguments(__doc__.split("\n\n")[0])
    host = HostSpec(name="local", work_dir=work_dir("benchdash-bench-fidelity-"))
    with connect(host) as transport, removed_after(host.work_dir):
        spec = bench_spec(host, options)
        first = run_trial(spec, transport)  # creates the data; not reported
        if not first.ok:
            raise SystemExit(f"first trial failed: {first.error}")
        results = interleave(
            options.rounds,
            lambda: benchdash_tps(spec, transport),
            lambda: hand_run_tps(spec, first.command),
        )
    print(table("benchdash", "hand-run", results, "0.98..1.02"))


if __name__ == "__main__":
    main()
