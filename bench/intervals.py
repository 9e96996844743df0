"""The ratio interval of one point (the rank interval a study page, the CSVs and the API compute for every point
against its baseline), timed at the run counts a study has, against the same module at an earlier commit.

Usage:  .venv/bin/python bench/intervals.py [--against b7c892a~1] [--runs 3 10 60 500 1250] [--repeat 20]

The earlier module is read with `git show <rev>:benchdash/studies/results/uncertainty.py` and loaded beside the
current one; both get the same runs (log-normal, 2% spread, the point 1% faster than its baseline), interleaved.
Prints a Markdown table of the median time per interval and whether both gave the same interval.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchdash.studies.results import uncertainty as current  # noqa: E402

MODULE = "benchdash/studies/results/uncertainty.py"


def module_at(revision: str) -> ModuleType:
    source = subprocess.run(["git", "show", f"{revision}:{MODULE}"], cwd=ROOT, check=True, capture_output=True).stdout
    path = Path(tempfile.mkdtemp()) / "uncertainty_then.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("uncertainty_then", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def runs(count: int, rng: random.Random, level: float) -> list[float]:
    return [level * rng.lognormvariate(0, 0.02) for _ in range(count)]


def median_ms(modules: tuple[ModuleType, ...], point: list[float], baseline: list[float], repeat: int) -> list[float]:
    """Each module's median time, the modules taking turns so that a change in the machine's load hits both."""
    times: list[list[float]] = [[] for _ in modules]
    for _ in range(repeat):
        for module, taken in zip(modules, times, strict=True):
            start = time.perf_counter()
            module.ratio_interval(point, baseline)
            taken.append((time.perf_counter() - start) * 1000)
    return [statistics.median(taken) for taken in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="b7c892a~1")
    parser.add_argument("--runs", type=int, nargs="+", default=[3, 10, 60, 500, 1250])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    then = module_at(args.against)
    rng = random.Random(5)
    print(f"| runs a side | {args.against} ms | now ms | same interval |")
    print("| ---: | ---: | ---: | --- |")
    for count in args.runs:
        point, baseline = runs(count, rng, 1010.0), runs(count, rng, 1000.0)
        before, after = median_ms((then, current), point, baseline, args.repeat)
        ends = [module.ratio_interval(point, baseline) for module in (then, current)]
        same = len({(interval.low, interval.high, interval.confidence) if interval else None for interval in ends}) == 1
        print(f"| {count} | {before:.3f} | {after:.3f} | {'yes' if same else 'no'} |")


if __name__ == "__main__":
    main()
