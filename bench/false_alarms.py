"""False alarms of the verdict: recorded runs of one build replayed as A/A studies (a build against itself).

Usage:  .venv/bin/python bench/false_alarms.py [--runs bench/data/runs-local-select-only-c2.csv] [--studies 2000]
        [--seed 11]

Each simulated study takes the recorded runs from a random starting point, in the order they ran, and deals them
to two "builds" A (the baseline) and B round by round, each round's order shuffled as a study's run order is.
After the planned rounds it applies adaptive repetitions as studies/lifecycle/adaptive.py does (another round while the
interval is not settled at the threshold, up to the cap), then the verdict at the threshold
(studies/results/uncertainty.py). Adaptive designs run twice, side by side on the same deals: with a 95% interval at
every look (the rule before), and with the study's confidence (uncertainty.study_confidence: the 5% shared among
the looks). A/A: every "faster" or "slower" is a false alarm. The same deals with B's runs multiplied by 1.05 and
1.10 say how often a real 5% and 10% gain is called "faster". Prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdash.studies.results.uncertainty import (  # noqa: E402
    CONFIDENCE,
    Verdict,
    is_settled,
    ratio_interval,
    study_confidence,
    verdict,
)
from workers.spread import coefficient_of_variation  # noqa: E402

FIXED = [(3, None, 0.02), (5, None, 0.0), (5, None, 0.01), (5, None, 0.02)]
ADAPTIVE = [(3, 10, 0.0), (3, 10, 0.01), (3, 10, 0.02), (3, 20, 0.02), (5, 20, 0.02)]
# planned rounds, cap (None: no adaptive repetitions), threshold, whether the looks share the 95%
DESIGNS = [(*design, True) for design in FIXED] + [(*design, shared) for design in ADAPTIVE for shared in (False, True)]
GAINS = (1.0, 1.05, 1.10)


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    runs_per_build: int


def simulate(record: list[float], start: int, rng: random.Random, design: tuple, gain: float) -> Outcome:
    """One A/A (gain 1) or A/B study dealt from the record at start; see the module's description."""
    planned, cap, threshold, shared = design
    confidence = study_confidence(planned, cap) if shared else CONFIDENCE
    position, baseline, build = start, [], []

    def one_round() -> None:
        nonlocal position
        order = ["A", "B"]
        rng.shuffle(order)
        for which in order:
            (baseline if which == "A" else build).append(record[position % len(record)] * (1 if which == "A" else gain))
            position += 1

    for _ in range(planned):
        one_round()
    while cap and len(build) < cap and not is_settled(ratio_interval(build, baseline, confidence), threshold):
        one_round()
    return Outcome(verdict(ratio_interval(build, baseline, confidence), threshold), len(build))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="bench/data/runs-local-select-only-c2.csv")
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    options = parser.parse_args()
    _interval_cost(options.seed)
    with open(options.runs, newline="") as file:
        record = [float(row["tps"]) for row in csv.DictReader(file)]
    cv = coefficient_of_variation(record)
    print(
        f"{len(record)} recorded runs, median {statistics.median(record):.0f} TPS, CV {cv:.1%}, "
        f"min..max {min(record):.0f}..{max(record):.0f}; {options.studies} simulated studies per row\n"
    )
    print(
        "| planned rounds | adaptive cap | threshold | confidence | A/A: faster or slower (false alarm) | "
        "A/A: too few runs | runs per build (mean) | +5% called faster | +10% called faster |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for design in DESIGNS:
        print(_row(record, design, options))


def _interval_cost(seed: int) -> None:
    """What one interval costs a page: runs a side as a study has them, and as the 1,000,000-trial bench has."""
    rng = random.Random(seed)
    for runs in (5, 20, 625):
        build = [rng.gauss(1000, 50) for _ in range(runs)]
        baseline = [rng.gauss(1000, 50) for _ in range(runs)]
        started = time.perf_counter()
        repeats = max(1, 2000 // runs)
        for _ in range(repeats):
            ratio_interval(build, baseline)
        print(f"interval of {runs} runs against {runs}: {(time.perf_counter() - started) / repeats * 1000:.2f} ms")
    print()


def _row(record: list[float], design: tuple, options: argparse.Namespace) -> str:
    shares = {}
    runs_per_build = 0.0
    too_few = 0.0
    for gain in GAINS:
        # The same starting points and shuffles for every gain: the rows differ only by the gain.
        rng = random.Random(options.seed)
        outcomes = [simulate(record, rng.randrange(len(record)), rng, design, gain) for _ in range(options.studies)]
        if gain == 1.0:
            shares[gain] = sum(o.verdict in (Verdict.FASTER, Verdict.SLOWER) for o in outcomes) / len(outcomes)
            too_few = sum(o.verdict == Verdict.TOO_FEW_RUNS for o in outcomes) / len(outcomes)
            runs_per_build = statistics.fmean(o.runs_per_build for o in outcomes)
        else:
            shares[gain] = sum(o.verdict == Verdict.FASTER for o in outcomes) / len(outcomes)
    planned, cap, threshold, shared = design
    confidence = f"{study_confidence(planned, cap):.2%}" if shared else "95% at every look (before)"
    return (
        f"| {planned} | {cap or 'off'} | {threshold:.0%} | {confidence} | **{shares[1.0]:.1%}** | {too_few:.0%} "
        f"| {runs_per_build:.1f} | {shares[1.05]:.0%} | {shares[1.10]:.0%} |"
    )


if __name__ == "__main__":
    main()
