"""False alarms, power and trials of every design the study form offers, on recorded runs replayed as studies.

Usage:  .venv/bin/python bench/false_alarms.py [--runs bench/data/runs-local-select-only-c2.csv ...]
        [--kindred bench/data/runs-local-1127-select-only-c2.csv ...]
        [--cvs 0.01,0.02,0.05] [--studies 1000] [--threshold 0.02] [--seed 11]

Each simulated study takes one file's recorded runs from a random starting point (one that leaves the largest
design's 20 runs before the record's end), in the order they ran, and deals them to two "builds" A (the baseline)
and B round by round, each round's order shuffled as a study's run order is. The 30 runs before the start (taken
from the record's end where the start is early) stand for the host's recent studies (10 cells of 3 runs: the
history the pooled t intervals borrow, studies/results/pooled.py). After the planned rounds an adaptive design
adds rounds while the interval is not settled at the threshold, up to the cap (studies/lifecycle/adaptive.py), then
the verdict.

Designs, each with the rank interval, the pooled t interval unpaired, paired by round, and paired by round on a
host with no history (the pairs' own spread alone, a new host's first study): 3 fixed, 5 fixed,
adaptive 3 to 10 with today's rule (95% shared equally among the 8 looks, Bonferroni) and with the new one (the
group-sequential boundary, studies/results/sequential.py). A/A (B = A): every "faster" or "slower" is a false
alarm; B's runs times 1.02, 1.05, 1.10: how often the gain is called "faster". The same deals for every gain and design.

With --kindred (one file for each of --runs), the history comes from the kindred record instead: the 30 runs
before the same starting point there, as a new host borrows the history of hosts of its kind (studies/results/
host_spread.py) and has none of its own. Only the two intervals that borrow a history are drawn then.

Each file is replayed as recorded (its CV measured) and rescaled to quieter CVs (--cvs): the log TPS deviations
from their mean multiplied so that the CV is the one asked, which keeps the recorded shape and drift. Prints a
Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdash.studies.results.pooled import HostSpread, Runs, cell_interval, squares  # noqa: E402
from benchdash.studies.results.sequential import Design  # noqa: E402
from benchdash.studies.results.uncertainty import (  # noqa: E402
    CONFIDENCE,
    RatioInterval,
    Verdict,
    is_settled,
    ratio_interval,
    verdict,
)
from workers.spread import coefficient_of_variation  # noqa: E402

GAINS = (1.0, 1.02, 1.05, 1.10)
METHODS = ("rank", "pooled t", "paired t", "paired t, no history")
HISTORY_CELLS, HISTORY_RUNS = 10, 3


@dataclass(frozen=True)
class Plan:
    """A design the form offers: planned rounds, adaptive cap, and the rule that sets each look's confidence."""

    name: str
    planned: int
    cap: int | None
    confidence: Callable[[int], float]


def bonferroni(planned: int, cap: int) -> Callable[[int], float]:
    """Today's rule: the 5% shared equally among the 1 + cap - planned looks."""
    looks = 1 + cap - planned
    return lambda runs: 1 - (1 - CONFIDENCE) / looks


PLANS = [
    Plan("3 fixed", 3, None, lambda runs: CONFIDENCE),
    Plan("5 fixed", 5, None, lambda runs: CONFIDENCE),
    Plan("adaptive 3 to 10, Bonferroni (today)", 3, 10, bonferroni(3, 10)),
    Plan("adaptive 3 to 10, group-sequential (new)", 3, 10, Design(3, 10).confidence),
]
# The most runs a simulated study deals (both builds at the largest cap): every study starts where that many
# recorded runs follow, so that none joins the record's last run to its first, a jump no host made.
MOST_RUNS = 2 * max(plan.cap or plan.planned for plan in PLANS)
Interval = Callable[[list[float], list[float], float], RatioInterval | None]


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    runs_per_build: int


def history_spread(record: list[float], start: int) -> HostSpread:
    """The host's recent studies: the 30 runs before start, as 10 cells of 3 runs, their spread pooled."""
    runs = [
        record[(start - HISTORY_CELLS * HISTORY_RUNS + i) % len(record)] for i in range(HISTORY_CELLS * HISTORY_RUNS)
    ]
    cells = [runs[i : i + HISTORY_RUNS] for i in range(0, len(runs), HISTORY_RUNS)]
    degrees = HISTORY_CELLS * (HISTORY_RUNS - 1)
    return HostSpread(sum(squares(cell) for cell in cells) / degrees, degrees)


def simulate(
    record: list[float], start: int, rng: random.Random, plan: Plan, interval: Interval, gain: float, threshold: float
) -> Outcome:
    """One A/A (gain 1) or A/B study dealt from the record at start; see the module's description."""
    position, baseline, build = start, [], []

    def one_round() -> None:
        nonlocal position
        order = ["A", "B"]
        rng.shuffle(order)
        for which in order:
            (baseline if which == "A" else build).append(record[position % len(record)] * (1 if which == "A" else gain))
            position += 1

    def drawn() -> RatioInterval | None:
        return interval(build, baseline, plan.confidence(len(build)))

    for _ in range(plan.planned):
        one_round()
    while plan.cap and len(build) < plan.cap and not is_settled(drawn(), threshold):
        one_round()
    return Outcome(verdict(drawn(), threshold), len(build))


def in_rounds(runs: list[float]) -> Runs:
    return Runs(runs, rounds=range(1, len(runs) + 1))


def rescaled(record: list[float], cv: float) -> list[float]:
    """The record with its log deviations from their mean scaled so that its CV is about `cv`."""
    logs = [math.log(run) for run in record]
    mean, spread = statistics.fmean(logs), statistics.stdev(logs)
    factor = math.sqrt(math.log(1 + cv * cv)) / spread
    return [math.exp(mean + (log - mean) * factor) for log in logs]


def row(
    label: str, record: list[float], plan: Plan, method: str, options: argparse.Namespace, history: list[float]
) -> str:
    """One line of the table; `history` is the record the host's recent studies are taken from (the studied one,
    or a kindred host's)."""
    shares, runs_used = {}, {}
    for gain in GAINS:
        rng = random.Random(options.seed)  # the same starting points and shuffles for every gain and design
        outcomes = []
        for _ in range(options.studies):
            start = rng.randrange(len(record) - MOST_RUNS + 1)
            spread = history_spread(history, start)

            def interval(
                runs: list[float], base: list[float], confidence: float, spread: HostSpread = spread
            ) -> RatioInterval | None:
                if method == "rank":
                    return ratio_interval(runs, base, confidence)
                if method == "paired t":  # run i of each side is round i + 1 (one_round appends both)
                    return cell_interval(in_rounds(runs), in_rounds(base), spread, confidence)
                if method == "paired t, no history":  # a new host: the rounds' own spread alone
                    return cell_interval(in_rounds(runs), in_rounds(base), None, confidence)
                return cell_interval(Runs(runs), Runs(base), spread, confidence)

            outcomes.append(simulate(record, start, rng, plan, interval, gain, options.threshold))
        called = (Verdict.FASTER, Verdict.SLOWER) if gain == 1.0 else (Verdict.FASTER,)
        shares[gain] = sum(o.verdict in called for o in outcomes) / len(outcomes)
        runs_used[gain] = statistics.fmean(o.runs_per_build for o in outcomes)
    return (
        f"| {label} | {plan.name} | {method} | **{shares[1.0]:.1%}** | {shares[1.02]:.0%} | {shares[1.05]:.0%} "
        f"| {shares[1.10]:.0%} | {runs_used[1.0]:.1f} / {runs_used[1.05]:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=["bench/data/runs-local-select-only-c2.csv"])
    parser.add_argument("--kindred", nargs="+", help="one record a --runs file, its history taken from it")
    parser.add_argument("--cvs", default="0.01,0.02,0.05")
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--threshold", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=11)
    options = parser.parse_args()
    _interval_cost(options.seed)
    print(f"threshold {options.threshold:.0%}, {options.studies} simulated studies per row and gain\n")
    print(
        "| runs (CV) | design | interval | A/A: faster or slower (false alarm) | +2% called faster "
        "| +5% called faster | +10% called faster | runs per build, mean (A/A / +5%) |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    if options.kindred and len(options.kindred) != len(options.runs):
        parser.error("--kindred takes one record for each of --runs")
    methods = ("pooled t", "paired t") if options.kindred else METHODS
    for path, kindred in zip(options.runs, options.kindred or options.runs, strict=True):
        recorded, kin = _tps(path), _tps(kindred)
        named = f"{Path(path).stem}" + (f", history from {Path(kindred).stem}" if options.kindred else "")
        records = [(f"{named}, as recorded ({coefficient_of_variation(recorded):.1%})", recorded, kin)]
        records += [
            (f"{named}, rescaled to {cv:.0%}", rescaled(recorded, cv), rescaled(kin, cv)) for cv in _cvs(options)
        ]
        for label, record, history in records:
            for plan in PLANS:
                for method in methods:
                    print(row(label, record, plan, method, options, history), flush=True)


def _tps(path: str) -> list[float]:
    with open(path, newline="") as file:
        return [float(line["tps"]) for line in csv.DictReader(file)]


def _interval_cost(seed: int) -> None:
    """What one interval costs a page, by each method: runs a side as a study has them, and as the
    1,000,000-trial bench has."""
    rng = random.Random(seed)
    spread = HostSpread(0.05**2, 20)
    for runs in (3, 5, 20, 625):
        build = [rng.gauss(1000, 50) for _ in range(runs)]
        baseline = [rng.gauss(1000, 50) for _ in range(runs)]
        repeats = max(1, 2000 // runs)
        methods = (
            ("rank", ratio_interval),
            ("pooled t", lambda a, b: cell_interval(Runs(a), Runs(b), spread)),
            ("paired t", lambda a, b: cell_interval(in_rounds(a), in_rounds(b), spread)),
            ("paired t, no history", lambda a, b: cell_interval(in_rounds(a), in_rounds(b), None)),
        )
        for name, draw in methods:
            started = time.perf_counter()
            for _ in range(repeats):
                draw(build, baseline)
            cost = (time.perf_counter() - started) / repeats * 1000
            print(f"{name} interval of {runs} runs against {runs}: {cost:.3f} ms")
    print()


def _cvs(options: argparse.Namespace) -> list[float]:
    return [float(cv) for cv in options.cvs.split(",") if cv]


if __name__ == "__main__":
    main()
