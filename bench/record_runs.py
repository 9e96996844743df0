"""Record run-to-run data: the same trial run again and again through benchdash's engine, its TPS written down.

Usage:  .venv/bin/python bench/record_runs.py --runs 160 [--duration 2] [--clients 2] [--builtin select-only]
        [--scale 1] [--seconds S] [--bin-dir DIR] [--output bench/data/runs-local-select-only-c2.csv]

On the local host: run_trial (start, prewarm, pgbench, stop; the data made once by a first, unrecorded trial), one
after another, as the trials of a study follow each other. Writes one CSV row per run (run, started, tps) in the
order they ran: bench/false_alarms.py replays them as A/A studies. --seconds ends the record after the run that
passes that much time, for a machine lent for minutes.
"""

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import add_trial_options, bench_spec, benchdash_tps, removed_after, work_dir  # noqa: E402

from workers.spec import HostSpec  # noqa: E402
from workers.transport import connect  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=160)
    parser.add_argument("--clients", type=int, default=2)
    add_trial_options(parser, duration_s=2)
    parser.add_argument("--output", default="")
    parser.add_argument("--seconds", type=float, default=float("inf"))
    options = parser.parse_args()
    output = Path(options.output or f"bench/data/runs-local-{options.builtin}-c{options.clients}.csv")
    host = HostSpec(name="local", work_dir=work_dir("benchdash-bench-record-"))
    with connect(host) as transport, removed_after(host.work_dir), output.open("w", newline="") as file:
        spec = bench_spec(host, options)
        benchdash_tps(spec, transport)  # makes the data; not recorded
        writer = csv.writer(file)
        writer.writerow(["run", "started", "tps"])
        deadline = time.monotonic() + options.seconds
        for run in range(1, options.runs + 1):
            if time.monotonic() > deadline:
                break
            started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            tps = benchdash_tps(spec, transport)
            writer.writerow([run, started, f"{tps:.3f}"])
            file.flush()
            print(f"run {run}: {tps:.1f} tps", file=sys.stderr)


if __name__ == "__main__":
    main()
