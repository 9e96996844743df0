"""Duet against sequential on the same host: false alarms, slowdowns called, and trials needed for 80% power.

Usage:  .venv/bin/python bench/duet_vs_sequential.py [--records bench/data/duet-runs-16core-pause.csv ...]
        [--studies 1000] [--trials 3,5,8,10] [--seed 11]

Reads what bench/duet_record.py recorded (one build as A and B; B unthrottled for the A/A, slowed for the others),
pairs A and B by round in each design, client count and size, and replays studies: n rounds drawn at random from the
recorded ones (with replacement), B against A by the interval a study on a new host draws (runs paired by round on
their own spread, studies/results/pooled.py: `own_paired_interval`), the verdict at threshold 0 (the interval
excludes 1). Per design and client count:
- the spread of the pairs (the SD of log B/A in the A/A rounds: what a design's pairing leaves of the host's noise);
- A/A: the share of studies with a verdict (a false alarm), on the A/A pairs centred on 0 (drawing from the recorded
  rounds as they are would take their mean, a few tenths of their spread off 0 by chance, for a real difference);
- each injected slowdown: its real effect (the mean of log B/A over its rounds, against the A/A's) and the share
  of studies that call it "slower";
- exact -2% and -5%: the centred A/A pairs with B times 0.98 and 0.95 (the host's noise, an effect of known size), the
  share called, and the trials a cell needs for 80% power at each, from the pairs' spread (t-based: the smallest n
  with t(0.975, n-1) + t(0.80, n-1) <= effect * sqrt(n) / spread).
Prints Markdown tables for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdash.studies.results.pooled import own_paired_interval, t_quantile  # noqa: E402
from benchdash.studies.results.uncertainty import Verdict, verdict  # noqa: E402

Cell = tuple[str, int]  # design, clients
EXACT = (0.02, 0.05)


def paired_rounds(path: str) -> dict[tuple[str, int, float], list[float]]:
    """log(B / A) of every recorded round (the warm-up round 0 left out), by design, clients and size."""
    sides: dict[tuple[str, int, float, int], dict[str, float]] = defaultdict(dict)
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            key = (row["design"], int(row["clients"]), float(row["size"]), int(row["round"]))
            sides[key][row["side"]] = float(row["tps"])
    pairs: dict[tuple[str, int, float], list[float]] = defaultdict(list)
    for (design, clients, size, round_), tps in sorted(sides.items()):
        if round_ and len(tps) == 2:
            pairs[(design, clients, size)].append(math.log(tps["B"] / tps["A"]))
    return pairs


def called(differences: list[float], trials: int, studies: int, rng: random.Random, verdicts: set[Verdict]) -> float:
    """The share of replayed studies of `trials` rounds whose verdict is one of `verdicts`."""
    hits = 0
    for _study in range(studies):
        drawn = [rng.choice(differences) for _trial in range(trials)]
        hits += verdict(own_paired_interval(drawn), threshold=0) in verdicts
    return hits / studies


def trials_for_power(spread: float, effect: float, power: float = 0.80, most: int = 500) -> int | None:
    """The smallest n whose paired t test at 95% reaches `power` against `effect` (both on the log scale)."""
    for trials in range(2, most + 1):
        reach = t_quantile(0.95, trials - 1) + t_quantile(2 * power - 1, trials - 1)
        if reach <= abs(effect) * math.sqrt(trials) / spread:
            return trials
    return None


def percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def cell_rows(pairs: dict[tuple[str, int, float], list[float]], cell: Cell, options: argparse.Namespace) -> list[str]:
    design, clients = cell
    rng = random.Random(options.seed)
    aa = pairs[(design, clients, 0.0)]
    spread = statistics.stdev(aa)
    centred = [difference - statistics.fmean(aa) for difference in aa]
    rows = []
    calls = {n: called(centred, n, options.studies, rng, {Verdict.FASTER, Verdict.SLOWER}) for n in options.trials}
    rows.append((f"A/A ({len(aa)} rounds)", f"{100 * math.expm1(statistics.fmean(aa)):+.1f}%", calls, ""))
    for size in sorted(size for d, c, size in pairs if (d, c) == cell and size):
        slowed = pairs[(design, clients, size)]
        effect = statistics.fmean(slowed) - statistics.fmean(aa)
        calls = {n: called(slowed, n, options.studies, rng, {Verdict.SLOWER}) for n in options.trials}
        rows.append((f"injected {size:g}% ({len(slowed)} rounds)", f"{100 * math.expm1(effect):+.1f}%", calls, ""))
    for effect in EXACT:
        shifted = [difference + math.log(1 - effect) for difference in centred]
        calls = {n: called(shifted, n, options.studies, rng, {Verdict.SLOWER}) for n in options.trials}
        needed = trials_for_power(spread, math.log(1 - effect))
        rows.append((f"A/A pairs, B x {1 - effect:.2f}", f"{-100 * effect:+.0f}%", calls, str(needed)))
    lines = []
    for label, effect_text, shares_by_trials, trials_needed in rows:
        shares = " | ".join(percent(shares_by_trials[n]) for n in options.trials)
        lines.append(
            f"| {design} | {clients} | {100 * spread:.1f}% | {label} | {effect_text} | {shares} | {trials_needed} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--records",
        nargs="+",
        default=["bench/data/duet-runs-16core-pause.csv", "bench/data/duet-runs-16core-quota.csv"],
    )
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--trials", type=lambda text: [int(n) for n in text.split(",")], default=[3, 5, 8, 10])
    parser.add_argument("--seed", type=int, default=11)
    options = parser.parse_args()
    for path in options.records:
        pairs = paired_rounds(path)
        print(f"\n{Path(path).name}\n")
        trials = " | ".join(f"{n} a side" for n in options.trials)
        print(f"| design | clients | spread of pairs | B against A | real effect | {trials} | trials for 80% |")
        print("| --- | ---: | ---: | --- | ---: |" + " ---: |" * len(options.trials) + " ---: |")
        for cell in sorted({(design, clients) for design, clients, _size in pairs}):
            print("\n".join(cell_rows(pairs, cell, options)))


if __name__ == "__main__":
    main()
