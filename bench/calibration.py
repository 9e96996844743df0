"""A calibration on this machine, over SSH: what it detects, what each injected slowdown really did, and its own time.

Usage:  .venv/bin/python bench/calibration.py [--rounds 6] [--sizes 10,25,50] [--duration 2] [--clients 2]
        [--builtin select-only] [--scale 1] [--bin-dir /usr/lib/postgresql/15/bin]

Starts a real sshd on 127.0.0.1 (tests/sshd.py), delegates a cgroup to its account (tests/cgroups.py, as root), and
runs a calibration's rounds through run_trial as lifecycle/calibration.py plans them: each round A and A' unthrottled
(in a random order), then each size once, its quota that size below the mean cores the unthrottled runs used so far.
The same trials without the cgroup run side by side, A/A only, one pair a round: the baseline of the trial time (what
reading the cgroup and setting the quota cost). Then the rounds go through studies/results/calibration.evaluate, as a
calibration's study is evaluated. Prints a Markdown summary for docs/BENCHMARKS.md.
"""

import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import django  # noqa: E402

django.setup()  # the results modules translate their words

from engine_fidelity import add_trial_options, bench_spec  # noqa: E402

from benchdash.studies.results.calibration import CalibrationRound, evaluate, real_effects  # noqa: E402
from tests import sshd  # noqa: E402
from tests.cgroups import delegate_cgroup  # noqa: E402
from workers.cpu_quota import quota_us  # noqa: E402
from workers.runner import run_trial  # noqa: E402
from workers.spec import CpuQuotaSpec, TrialSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402


def run(spec: TrialSpec, transport: Transport, times: list[float]) -> tuple[float, float | None]:
    started = time.monotonic()
    outcome = run_trial(spec, transport)
    times.append(time.monotonic() - started)
    if not outcome.ok or outcome.tps is None:
        raise SystemExit(f"{spec.variant} failed: {outcome.error}")
    return outcome.tps, outcome.server_cores


def calibration_round(spec: TrialSpec, transport: Transport, sizes: list[int], state: dict) -> CalibrationRound:
    unthrottled = []
    for _side in range(2):
        tps, cores = run(replace(spec, cpu_quota=CpuQuotaSpec(None)), transport, state["in_cgroup"])
        unthrottled.append(tps)
        state["cores"].append(cores)
    slowed = {}
    for size in state["random"].sample(sizes, len(sizes)):
        quota = CpuQuotaSpec(quota_us(statistics.fmean(state["cores"]), size))
        slowed[size] = run(replace(spec, cpu_quota=quota), transport, state["in_cgroup"])[0]
    state["random"].shuffle(unthrottled)
    return CalibrationRound(unthrottled[0], unthrottled[1], slowed)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--sizes", default="10,25,50")
    parser.add_argument("--clients", type=int, default=2)
    add_trial_options(parser, duration_s=2)
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    state: dict = {"random": random.Random(42), "cores": [], "in_cgroup": [], "plain": [], "plain_pairs": []}
    started = time.monotonic()
    with sshd.running_sshd("bench-calibration") as host, connect(host) as transport:
        delegate_cgroup(host.username)
        spec = replace(bench_spec(host, options), keep_server=True)
        rounds = []
        for number in range(options.rounds):
            rounds.append(calibration_round(spec, transport, sizes, state))
            # the baseline: the same trials outside any cgroup, an A/A pair a round
            state["plain_pairs"].append([run(spec, transport, state["plain"])[0] for _side in range(2)])
            print(f"round {number + 1}: {rounds[-1]}", file=sys.stderr)
        run(replace(spec, keep_server=False), transport, state["plain"])
    report(rounds, state, sizes, time.monotonic() - started)


def report(rounds: list[CalibrationRound], state: dict, sizes: list[int], seconds: float) -> None:
    cores = state["cores"]
    print(
        f"\nrounds {len(rounds)}, unthrottled server cores median {statistics.median(cores):.2f} "
        f"(min {min(cores):.2f}, max {max(cores):.2f}); wall time {seconds:.0f} s\n"
    )
    print("| size | real effect (mean of slowed / A) |\n| ---: | ---: |")
    for size, effect in real_effects(rounds).items():
        print(f"| {size}% | {effect:.1%} |")
    print("\n| runs a side | studies | A/A false alarms | " + " | ".join(f"{size}% called" for size in sizes) + " |")
    print("| ---: | ---: | ---: | " + " | ".join("---:" for _ in sizes) + " |")
    for detection in evaluate(rounds, threshold=0.02, seed=42):
        called = " | ".join(f"{detection.called[size]}" for size in sizes)
        print(f"| {detection.runs} | {detection.studies} | {detection.false_alarms} | {called} |")
    ratios = [second / first for first, second in state["plain_pairs"]]
    print(
        "\nA/A outside the cgroup, second / first run of each round: " + ", ".join(f"{ratio:.2f}" for ratio in ratios)
    )
    in_cgroup, plain = state["in_cgroup"], state["plain"]
    print(
        f"\ntrial time, median (min..max) s: in the cgroup {statistics.median(in_cgroup):.2f} "
        f"({min(in_cgroup):.2f}..{max(in_cgroup):.2f}), n={len(in_cgroup)}; without {statistics.median(plain):.2f} "
        f"({min(plain):.2f}..{max(plain):.2f}), n={len(plain)}"
    )


if __name__ == "__main__":
    main()
