"""Where a plotly figure's values fall on a drawing: the x axis (client counts, seconds, or categories) and each y
axis (a panel of its own, or overlaying another on the right), as plotly would place them for benchdash's charts.

Only what benchdash's figures use is read: `x`/`y` arrays (a multicategory x is two arrays, joined), `xaxis.type`,
`categoryarray`, `tickvals`, `range` (an explicit range, or a zoom), `rangemode`, `domain`, `overlaying`, `autorange:
"reversed"`, `barmode: "stack"` and scatter `stackgroup`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Trace = dict[str, Any]
TICKS_WANTED = 5


def plain_text(text: object) -> str:
    """A plotly label without its markup: '10<br>-t 100' → '10 -t 100'."""
    return str(text).replace("<br>", " ").replace("<sub>", "").replace("</sub>", "")


def trace_x(trace: Trace) -> list[Any]:
    """The trace's x values; a two-level (multicategory) x as one label per bar: '8 · 15.2'."""
    x = list(trace.get("x") or [])
    if len(x) == 2 and all(isinstance(level, list) for level in x):
        return [f"{outer} · {inner}" for outer, inner in zip(x[0], x[1], strict=True)]
    return [plain_text(value) if isinstance(value, str) else value for value in x]


@dataclass
class XScale:
    """x value → a fraction of the plot's width, and the ticks to label."""

    categories: list[str] = field(default_factory=list)
    low: float = 0.0
    high: float = 1.0
    ticks: list[tuple[float, str]] = field(default_factory=list)

    def position(self, value: Any) -> float | None:
        if self.categories:
            key = plain_text(value)
            number = float(self.categories.index(key)) if key in self.categories else None
        else:
            number = float(value) if isinstance(value, int | float) else None
        return None if number is None else self.fraction(number)

    def fraction(self, number: float) -> float | None:
        """A position on the axis (a category's index, or a value) as a fraction of the plot's width."""
        return None if self.high == self.low else (number - self.low) / (self.high - self.low)

    def step(self) -> float:
        """The width of one category as a fraction of the plot (bars' slot)."""
        return 1.0 / max(self.high - self.low, 1.0) if self.categories else 0.8 / max(len(self.ticks), 1)


def x_scale(traces: Sequence[Trace], axis: dict[str, Any]) -> XScale:
    values = [value for trace in traces for value in trace_x(trace) if value is not None]
    if axis.get("type") == "category" or any(isinstance(value, str) for value in values):
        categories = [plain_text(c) for c in axis.get("categoryarray") or []] or list(dict.fromkeys(map(str, values)))
        low, high = axis.get("range") or (-0.5, len(categories) - 0.5)
        ticks = [(float(number), label) for number, label in enumerate(categories)]
        return XScale(categories, float(low), float(high), ticks)
    numbers = [float(value) for value in values] or [0.0, 1.0]
    low, high = axis.get("range") or _padded(min(numbers), max(numbers), axis.get("rangemode") == "tozero", 0.03)
    tickvals = axis.get("tickvals") or nice_ticks(low, high)
    return XScale([], float(low), float(high), [(float(tick), _number(tick)) for tick in tickvals])


@dataclass
class YScale:
    low: float
    high: float
    reversed: bool = False

    def position(self, value: float) -> float:
        fraction = (value - self.low) / ((self.high - self.low) or 1.0)
        return 1.0 - fraction if self.reversed else fraction

    def ticks(self) -> list[tuple[float, str]]:
        return [(tick, _number(tick)) for tick in nice_ticks(self.low, self.high)]


def y_scale(traces: Sequence[Trace], axis: dict[str, Any], stacked: bool) -> YScale:
    if axis.get("range"):
        low, high = axis["range"]
        return YScale(float(low), float(high), axis.get("autorange") == "reversed")
    values = _stacked_totals(traces) if stacked else [v for trace in traces for v in _extents(trace)]
    values = values or [0.0, 1.0]
    bars = any(trace.get("type") == "bar" for trace in traces)
    low, high = _padded(min(values), max(values), bars or axis.get("rangemode") == "tozero", 0.05)
    return YScale(low, high, axis.get("autorange") == "reversed")


def nice_ticks(low: float, high: float) -> list[float]:
    """About TICKS_WANTED round ticks (1, 2 or 5 times a power of ten apart) between low and high."""
    span = high - low
    if span <= 0:
        return [low]
    raw = span / TICKS_WANTED
    power = 10 ** math.floor(math.log10(raw))
    step = next(multiple * power for multiple in (1, 2, 5, 10) if multiple * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + number * step, 10) for number in range(int((high - first) / step + 1e-9) + 1)]


def _extents(trace: Trace) -> list[float]:
    """The trace's values, with the ends of its error bars."""
    ys = [float(y) for y in trace.get("y") or [] if isinstance(y, int | float)]
    error = trace.get("error_y") or {}
    plus, minus = error.get("array") or [], error.get("arrayminus") or error.get("array") or []
    tops = [y + (p or 0) for y, p in zip(trace.get("y") or [], plus, strict=False) if y is not None]
    bottoms = [y - (m or 0) for y, m in zip(trace.get("y") or [], minus, strict=False) if y is not None]
    return ys + tops + bottoms


def _stacked_totals(traces: Sequence[Trace]) -> list[float]:
    totals: dict[str, float] = {}
    for trace in traces:
        for x, y in zip(trace_x(trace), trace.get("y") or [], strict=False):
            totals[str(x)] = totals.get(str(x), 0.0) + (y or 0.0)
    return [0.0, *totals.values()]


def _padded(low: float, high: float, to_zero: bool, margin: float) -> tuple[float, float]:
    if to_zero:
        low = min(low, 0.0)
    span = (high - low) or abs(high) or 1.0
    return (low if to_zero and low == 0 else low - span * margin), high + span * margin


def _number(value: float) -> str:
    return f"{value:,.10g}" if abs(value) < 1e15 else f"{value:.3g}"
