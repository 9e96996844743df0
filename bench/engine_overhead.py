"""The engine's own time per trial, over SSH: everything beyond pgbench's duration and the data reset.

Usage:  .venv/bin/python bench/engine_overhead.py [--trials 10] [--duration 3] [--clients 2]
        [--builtin select-only] [--scale 1] [--bin-dir /usr/lib/postgresql/15/bin]

Starts a real sshd on 127.0.0.1 (as the tests do, tests/sshd.py), runs `trials` trials through
run_trial over one SSH connection with the study defaults (sar and wait-event sampling on), and
prints per phase the median seconds, and the overhead = total - duration - reset (goal: median < 1 s).
"reset" is prepare_cluster: data reset, settings, server start and prewarm.

Two series: each trial on its own (host facts read, server started and stopped: a study's first
trial, or one whose neighbours use another build), then trials in a row as a study runs them when
the next trial uses the same data (known facts, the server kept running and taken over; the last
one stops it). Each series runs twice, side by side: as run_trial runs by hand, and as a worker runs
an attempt (fenced with its token, and asked whether to stop, so that the long commands run as
polled background groups): the difference is what fencing and cancellable steps cost.
"""

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import arguments, bench_spec  # noqa: E402

from tests import sshd  # noqa: E402
from workers.runner import run_trial  # noqa: E402
from workers.spec import TrialSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402


def measure(
    spec: TrialSpec, transport: Transport, trials: int, label: str, as_worker: bool = False
) -> list[dict[str, float]]:
    timings = []
    for number in range(trials):
        attempt = replace(spec, keep_server=spec.keep_server and number < trials - 1)
        if as_worker:  # each attempt's token is larger than the one before, as the store's attempt ids are
            attempt = replace(attempt, fence=f"1.{time.monotonic_ns()}")
        outcome = run_trial(attempt, transport, should_cancel=(lambda: False) if as_worker else None)
        if not outcome.ok:
            raise SystemExit(f"{label} trial {number + 1} failed: {outcome.error}")
        timings.append(outcome.timings)
        print(f"  {label} {number + 1}: {outcome.timings}", file=sys.stderr)
    return timings


def report(label: str, timings: list[dict[str, float]], duration_s: int) -> None:
    overheads = [timing["total"] - duration_s - timing["reset"] for timing in timings]
    beyond = [timing["total"] - duration_s for timing in timings]
    print(f"\n{label}\n\n| phase | median s | min..max s |\n| --- | --- | --- |")
    for name in dict.fromkeys(name for timing in timings for name in timing):
        values = [timing.get(name, 0.0) for timing in timings]
        print(f"| {name} | {statistics.median(values):.3f} | {min(values):.3f}..{max(values):.3f} |")
    print(f"\noverhead (total - duration - reset): median **{statistics.median(overheads):.3f} s** ", end="")
    print(
        f"({min(overheads):.3f}..{max(overheads):.3f}); total - duration: median {statistics.median(beyond):.3f} s ",
        end="",
    )
    print(f"({min(beyond):.3f}..{max(beyond):.3f}) over {len(timings)} trials (goal: overhead median < 1 s)")


def main() -> None:
    options = arguments(__doc__.split("\n\n")[0], duration_s=3)
    with sshd.running_sshd("bench-ssh") as host, connect(host) as transport:
        spec = bench_spec(host, options, sar=True, wait_events=True)
        first = run_trial(spec, transport)  # creates the data; not reported
        if not first.ok:
            raise SystemExit(f"first trial failed: {first.error}")
        results = {}
        for as_worker in (False, True):
            results["alone", as_worker] = measure(spec, transport, options.trials, "alone", as_worker)
            in_study = replace(spec, keep_server=True, collect_facts=False, known_facts=first.host_facts)
            run_trial(in_study, transport)  # starts the server the next trials take over; not reported
            results["in a study", as_worker] = measure(in_study, transport, options.trials, "in a study", as_worker)
    for as_worker in (False, True):
        how = "as a worker runs an attempt (fenced, cancellable steps)" if as_worker else "by hand (no fence)"
        report(f"Each trial on its own, {how}:", results["alone", as_worker], spec.duration_s)
        report(f"Trials in a row within a study, {how}:", results["in a study", as_worker], spec.duration_s)


if __name__ == "__main__":
    main()
