"""The first-round effect on the 16-core records, before and after a warm-up round is left out.

Usage:  .venv/bin/python bench/first_round.py [--runs bench/data/runs-16core-*.csv] [--cells 2,3,4] [--rounds 3,5,10]

Each record is replayed as a study from its start: its runs, in the order they ran, dealt to `cells` cells round by
round (round 1 the first `cells` runs), as a study of that many cells runs them. "as run": every round counted;
"warm-up left out": the first `cells` runs are the warm-up round 0 and the next `rounds` rounds are counted. For each,
the study's first-round effect (the median of its cells' first round over the median of their other runs, minus one)
and its two-sided chance where the host does not warm up (studies/results/first_round.py); beyond noise below 0.05.
Prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdash.studies.results.first_round import FirstRound, cell_first_round, stouffer_p_value  # noqa: E402

RECORDS = sorted(str(path) for path in (Path(__file__).parent / "data").glob("runs-16core-*.csv"))


def recorded_tps(path: str) -> list[float]:
    with open(path) as lines:
        return [float(row["tps"]) for row in csv.DictReader(lines)]


def dealt_first_round(tps: list[float], cells: int, rounds: int, warmup: bool) -> FirstRound | None:
    """The first-round effect of the record's runs dealt to cells round by round, after a warm-up round or not."""
    start = cells if warmup else 0
    runs = tps[start : start + cells * rounds]
    if len(runs) < cells * rounds:
        return None
    found = [cell_first_round(runs[cell::cells], list(range(1, rounds + 1))) for cell in range(cells)]
    measured = [cell for cell in found if cell is not None]
    if not measured:
        return None
    effects = sorted(cell.effect for cell in measured)
    middle = len(effects) // 2
    median = effects[middle] if len(effects) % 2 else (effects[middle - 1] + effects[middle]) / 2
    return FirstRound(median, stouffer_p_value(measured), len(measured))


def cell_text(found: FirstRound | None) -> str:
    if found is None:
        return "—"
    mark = " **beyond noise**" if found.beyond_noise else ""
    return f"{found.effect:+.1%}, p {found.p_value:.3f}{mark}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=RECORDS)
    parser.add_argument("--cells", default="2,3,4")
    parser.add_argument("--rounds", default="3,5,10")
    args = parser.parse_args()
    print("| record | cells × rounds | as run | warm-up round left out |")
    print("| --- | --- | --- | --- |")
    for path in args.runs:
        tps = recorded_tps(path)
        for cells in map(int, args.cells.split(",")):
            for rounds in map(int, args.rounds.split(",")):
                before = dealt_first_round(tps, cells, rounds, warmup=False)
                after = dealt_first_round(tps, cells, rounds, warmup=True)
                print(f"| {Path(path).name} | {cells} × {rounds} | {cell_text(before)} | {cell_text(after)} |")


if __name__ == "__main__":
    main()
