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
one stops it).
"""

import statistics
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import arguments, bench_spec  # noqa: E402

from tests import sshd  # noqa: E402
from workers.runner import run_trial  # noqa: E402
from workers.spec import TrialSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402


def measure(spec: TrialSpec, transport: Transport, trials: int, label: str) -> list[dict[str, float]]:
    timings = []
    for number in range(trials):
        outcome = run_trial(replace(spec, keep_server=spec.keep_server and number < trials - 1), transport)
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
        alone = measure(spec, transport, options.trials, "alone")
        in_study = replace(spec, keep_server=True, collect_facts=False, known_facts=first.host_facts)
        run_trial(in_study, transport)  # starts the server the next trials take over; not reported
        within = measure(in_study, transport, options.trials, "in a study")
    report("Each trial on its own (facts read, server started and stopped):", alone, spec.duration_s)
    report("Trials in a row within a study (known facts, the server kept running):", within, spec.duration_s)


if __name__ == "__main__":
    main()
