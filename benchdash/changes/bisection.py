"""Bisecting a change between two minor releases: the pure rule that picks the next study from the last verdict.

The minors of one major in the range, oldest first, are `minors[0]` (before the change) .. `minors[-1]` (after
it). Each step is one study of two builds, the baseline `low` against `compared`, run until its verdict is
settled or its cap says it cannot be:

1. The first step compares the two ends, to confirm the change and learn its direction (faster or slower).
   A bisect started from a change point already knows both and starts at step 2.
2. Then, while `low` and `high` are not adjacent, compare `low` with the midpoint: the change's own verdict
   there means the change is at or before the midpoint (high = midpoint); "no difference" (an interval wholly
   inside the threshold) means it is after it (low = midpoint).
3. Adjacent `low` and `high`: `high` is the first minor where the change appears.
4. Any other verdict (can't tell at the cap, too few runs, the opposite direction) stops the bisect there: it
   cannot be narrowed further without guessing, and the page says so.

At most ceil(log2(N - 1)) studies in step 2 for N minors, plus the one of step 1: within ceil(log2 N) + 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from benchdash.studies.results.uncertainty import Verdict

SAME = "same"  # a settled interval wholly inside the threshold: no difference


class Outcome(StrEnum):
    NEXT = "next"
    FOUND = "found"
    NO_CHANGE = "no_change"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class BisectState:
    """Where a bisect stands: indexes into its minors, and the change's direction once known."""

    low: int
    high: int
    direction: str | None = None  # Verdict.FASTER or Verdict.SLOWER


@dataclass(frozen=True)
class Step:
    """What to do next: compare minors[low] with minors[compared] (outcome NEXT), or stop with the outcome;
    `first_changed` is the index of the first minor where the change appears (outcome FOUND)."""

    outcome: Outcome
    state: BisectState
    compared: int | None = None
    first_changed: int | None = None


def bisect_start(count: int, direction: str | None = None) -> Step:
    """The first step over `count` minors: the two ends (step 1), or the first midpoint when the change's
    direction is already known (a bisect started from a change point)."""
    if count < 2:
        raise ValueError("a bisect needs two minors at least")
    state = BisectState(0, count - 1, direction)
    return _narrowed(state) if direction else Step(Outcome.NEXT, state, compared=count - 1)


def bisect_next(step: Step, verdict: str) -> Step:
    """The step after `step`'s study gave `verdict` (a uncertainty.Verdict, or SAME)."""
    state = step.state
    if step.outcome != Outcome.NEXT or step.compared is None:
        raise ValueError("this bisect has ended")
    if state.direction is None:
        return _after_confirmation(state, verdict)
    if verdict == state.direction:
        return _narrowed(BisectState(state.low, step.compared, state.direction))
    if verdict == SAME:
        return _narrowed(BisectState(step.compared, state.high, state.direction))
    return Step(Outcome.INCONCLUSIVE, state, compared=step.compared)


def _after_confirmation(state: BisectState, verdict: str) -> Step:
    if verdict in (Verdict.FASTER, Verdict.SLOWER):
        return _narrowed(BisectState(state.low, state.high, verdict))
    if verdict == SAME:
        return Step(Outcome.NO_CHANGE, state)
    return Step(Outcome.INCONCLUSIVE, state, compared=state.high)


def _narrowed(state: BisectState) -> Step:
    if state.high - state.low <= 1:
        return Step(Outcome.FOUND, state, first_changed=state.high)
    return Step(Outcome.NEXT, state, compared=(state.low + state.high) // 2)


def most_studies(count: int) -> int:
    """The bound the issue sets: ceil(log2 N) + 1 studies for N minors."""
    return (count - 1).bit_length() + 1
