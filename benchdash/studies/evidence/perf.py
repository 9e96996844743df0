"""perf's folded stacks ("comm;outer;...;inner count" lines) -> shares of samples per function, a trimmed
call tree for the flame graph, and the differential ranking of two builds. Pure functions.

A function's *self* share is the part of the samples whose innermost frame it is; its *children* share
(perf report --children, the width of its frame in a flame graph) is the part of the samples with it
anywhere on the stack, counted once per stack however deep the recursion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# Kept per trial: enough to rank the differential of two builds below the top of either.
SELF_KEPT = 300
CHILDREN_KEPT = 150
# Builds whose unresolved shares differ by more than this are warned about: their differential mixes symbols
# with what perf could not name.
UNRESOLVED_GAP = 0.10
# The flame graph keeps frames of at least this share of the samples, and at most FLAME_NODES frames.
FLAME_MIN_SHARE = 0.002
FLAME_NODES = 600


@dataclass(frozen=True)
class FunctionShare:
    function: str
    samples: int
    share: float  # of all the trial's samples, 0..1

    def to_dict(self) -> dict[str, object]:
        return {"function": self.function, "samples": self.samples, "share": round(self.share, 6)}


@dataclass(frozen=True)
class PerfSummary:
    samples: int
    self_shares: list[FunctionShare]
    children_shares: list[FunctionShare]
    flame: dict[str, list]  # labels, parents (index, -1 for the root), values


@dataclass(frozen=True)
class FunctionChange:
    """One function's share in a baseline build and in another; change in percentage points (0..100 scale)."""

    function: str
    baseline_share: float
    other_share: float

    @property
    def change(self) -> float:
        return self.other_share - self.baseline_share


def with_percent(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A stored {function, samples, share} row with its share in percent, for a table."""
    return None if row is None else {**row, "percent": 100.0 * row["share"]}


def parse_folded(text: str) -> list[tuple[list[str], int]]:
    """ "comm;f1;f2 12" lines -> (frames outermost first, comm included, count); malformed lines are skipped."""
    stacks = []
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count.isdigit() and int(count) > 0:
            stacks.append((stack.split(";"), int(count)))
    return stacks


def summarize_perf(text: str) -> PerfSummary | None:
    """The summary of one trial's folded stacks; None when there is no sample."""
    stacks = parse_folded(text)
    total = sum(count for _frames, count in stacks)
    if not total:
        return None
    own: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    for frames, count in stacks:
        functions = frames[1:] or frames  # the comm alone when perf caught no frame
        own[functions[-1]] += count
        for function in set(functions):
            anywhere[function] += count
    return PerfSummary(
        samples=total,
        self_shares=_ranked(own, total, SELF_KEPT),
        children_shares=_ranked(anywhere, total, CHILDREN_KEPT),
        flame=flame_tree(stacks, total),
    )


def _ranked(counts: Counter[str], total: int, kept: int) -> list[FunctionShare]:
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:kept]
    return [FunctionShare(function, samples, samples / total) for function, samples in ordered]


def flame_tree(stacks: Iterable[tuple[list[str], int]], total: int) -> dict[str, list]:
    """The call tree as flat lists for a plotly icicle: labels, parents (index, -1 for the root), values.

    1. Merge the stacks into a tree under a root "all" (each node: children by name, samples).
    2. Keep nodes of at least FLAME_MIN_SHARE of the samples, the largest first, at most FLAME_NODES;
       a kept node's parent is always kept (a child never has more samples than its parent).
    3. Number the kept nodes breadth-first; values are inclusive (plotly's branchvalues "total").
    """
    root: dict = {"children": {}, "samples": 0}
    for frames, count in stacks:
        node = root
        node["samples"] += count
        for frame in frames:
            node = node["children"].setdefault(frame, {"children": {}, "samples": 0})
            node["samples"] += count
    labels, parents, values = ["all"], [-1], [root["samples"]]
    minimum = max(1, total * FLAME_MIN_SHARE)
    queue = [(0, root)]
    while queue and len(labels) < FLAME_NODES:
        index, node = queue.pop(0)
        for name, child in sorted(node["children"].items(), key=lambda item: -item[1]["samples"]):
            if child["samples"] < minimum or len(labels) >= FLAME_NODES:
                break
            labels.append(name)
            parents.append(index)
            values.append(child["samples"])
            queue.append((len(labels) - 1, child))
    return {"labels": labels, "parents": parents, "values": values}


def is_unresolved(function: str) -> bool:
    """A frame perf could not name: "[unknown]", a bare address, or only the object it is in ("[postgres]")."""
    return function == "[unknown]" or function.startswith("0x") or (function.startswith("[") and function.endswith("]"))


def unresolved_share(self_shares: Iterable[Mapping[str, Any]]) -> float:
    """The share of samples whose innermost frame perf could not name, from a trial's kept self shares."""
    return sum(row["share"] for row in self_shares if is_unresolved(row["function"]))


def unresolved_differ(shares: Iterable[float]) -> bool:
    """Whether builds' unresolved shares differ by more than UNRESOLVED_GAP."""
    values = list(shares)
    return len(values) > 1 and max(values) - min(values) > UNRESOLVED_GAP


def perf_differential(baseline: Mapping[str, float], other: Mapping[str, float]) -> list[FunctionChange]:
    """Functions ranked by the change of their share from the baseline build to another: the largest growth
    first, the largest shrink last. A function missing from one side's kept list counts as 0 there."""
    changes = [
        FunctionChange(function, baseline.get(function, 0.0), other.get(function, 0.0))
        for function in set(baseline) | set(other)
    ]
    return sorted(changes, key=lambda change: (-change.change, change.function))
