"""CPU scaling: TPS against clients, one line per CPU count, through benchdash's engine and its CPU sets.

Usage:  .venv/bin/python bench/cpu_scaling.py [--cpus 1,2,4,8,16] [--clients-list 1,4,16,64] [--rounds 1]
        [--duration 2] [--builtin select-only] [--scale 1] [--bin-dir DIR] [--output cpu-scaling.csv]

On the local host: the data made once (a first, unrecorded trial), then every CPU count x client count, each
round in a new random order, as a study of the seeds' update-scalability shape (seed 004: 15 to 60 cores, 1 to
384 sessions) would run them. Each trial starts the server inside a CPU set of the host's first CPUs and checks
that the postmaster and every backend stayed inside it (the trial fails otherwise). Writes one CSV row per run
(round, cpus, clients, tps) and prints the peak TPS per CPU count as a Markdown table.
"""

import argparse
import csv
import random
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import add_trial_options, bench_spec, benchdash_tps, removed_after, work_dir  # noqa: E402

from workers.spec import HostSpec  # noqa: E402
from workers.transport import connect  # noqa: E402


def numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", type=numbers, default=[1, 2, 4, 8, 16])
    parser.add_argument("--clients-list", type=numbers, default=[1, 4, 16, 64])
    parser.add_argument("--rounds", type=int, default=1)
    add_trial_options(parser, duration_s=2)
    parser.add_argument("--output", default="cpu-scaling.csv")
    options = parser.parse_args()
    options.clients = max(options.clients_list)
    host = HostSpec(name="local", work_dir=work_dir("benchdash-bench-cpu-scaling-"))
    peaks: dict[int, float] = {}
    with connect(host) as transport, removed_after(host.work_dir), open(options.output, "w", newline="") as file:
        spec = bench_spec(host, options)
        benchdash_tps(spec, transport)  # makes the data; not recorded
        writer = csv.writer(file)
        writer.writerow(["round", "cpus", "clients", "tps"])
        cells = [(cpus, clients) for cpus in options.cpus for clients in options.clients_list]
        for round_number in range(1, options.rounds + 1):
            for cpus, clients in random.Random(round_number).sample(cells, len(cells)):
                trial = replace(spec, cpus=cpus, clients=clients, threads=max(1, min(clients, cpus) // 2))
                tps = benchdash_tps(trial, transport)
                writer.writerow([round_number, cpus, clients, f"{tps:.3f}"])
                file.flush()
                peaks[cpus] = max(peaks.get(cpus, 0.0), tps)
                print(f"round {round_number}: {cpus} CPUs, {clients} clients: {tps:.1f} tps", file=sys.stderr)
    print("| CPUs | peak TPS |\n| ---: | ---: |")
    for cpus in options.cpus:
        print(f"| {cpus} | {peaks[cpus]:,.0f} |")


if __name__ == "__main__":
    main()
