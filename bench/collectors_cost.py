"""Collectors' cost: TPS with sar and wait-event sampling on against off, interleaved.

Usage:  .venv/bin/python bench/collectors_cost.py [--rounds 5] [--duration 15] [--clients 2]
        [--builtin select-only] [--scale 1] [--bin-dir /usr/lib/postgresql/15/bin]

On the local host, the same trial through run_trial, `rounds` times each way, the order alternating
every round. Prints a Markdown table: median TPS of each and the ratio on / off (goal >= 0.99).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import arguments, bench_spec, benchdash_tps, interleave, removed_after, table, work_dir  # noqa: E402

from workers.runner import run_trial  # noqa: E402
from workers.spec import HostSpec  # noqa: E402
from workers.transport import connect  # noqa: E402


def main() -> None:
    options = arguments(__doc__.split("\n\n")[0])
    host = HostSpec(name="local", work_dir=work_dir("benchdash-bench-collectors-"))
    with connect(host) as transport, removed_after(host.work_dir):
        quiet = bench_spec(host, options)
        observed = bench_spec(host, options, sar=True, wait_events=True)
        first = run_trial(observed, transport)  # creates the data and checks the collectors work
        if not first.ok or not {"sar_series", "wait_events"} <= first.artifacts.keys():
            raise SystemExit(f"first trial failed or collected nothing: {first.error} {first.notes}")
        results = interleave(
            options.rounds, lambda: benchdash_tps(observed, transport), lambda: benchdash_tps(quiet, transport)
        )
    print(table("sar + wait events on", "off", results, ">= 0.99"))


if __name__ == "__main__":
    main()
