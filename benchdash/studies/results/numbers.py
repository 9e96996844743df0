"""How a table writes its figures: one format per column, the report page, the PDF and the slides alike.

A figure is rounded as the CSV writes it (studies/csv_cells.py, docs/CSV.md "Numbers": 4 decimal places at most),
and every figure of a column gets the places its most precise figure needs, so that a column never mixes '34,000',
'412.9' and '8,404.637': the seeds' 437.2413 and 8404.637 print as '437.2413' and '8,404.6370' one above the other.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchdash.studies.csv_cells import DECIMAL_PLACES, rounded

NO_FIGURE = "—"


def column_texts(values: Sequence[float | None]) -> list[str]:
    """The figures of one column as text, thousands separated, each with the column's places; '—' for none."""
    places = max((_places(value) for value in values if value is not None), default=0)
    return [NO_FIGURE if value is None else f"{rounded(float(value)):,.{places}f}" for value in values]


def _places(value: float) -> int:
    """The decimal places a figure needs once rounded by the CSV rule: 0 for 34000.0, 3 for 8404.637."""
    decimals = f"{rounded(float(value)):.{DECIMAL_PLACES}f}".rstrip("0").partition(".")[2]
    return len(decimals)
