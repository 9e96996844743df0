"""The rules for every CSV cell, headers included: no text cell can run as a spreadsheet formula (CSV injection),
and a computed number is written rounded (docs/CSV.md, "Numbers").

Python-written cells go through inert() and rounded(); the cells PostgreSQL writes (csv_copy.InertText) test the same
triggers, and its numbers are the stored ones, as pgbench printed them.
"""

from typing import Any

# A spreadsheet runs a cell starting with one of these as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# Four places keep a ratio to 0.01 % (0.9444 is the seeds' 94.44 %) and every TPS as pgbench's medians make it; more
# would only write float noise (109.00000000000001 for 100 x 1.09).
DECIMAL_PLACES = 4


def inert(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading apostrophe; other values pass."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def rounded(value: Any) -> Any:
    """A float rounded to DECIMAL_PLACES (109.0 for 109.00000000000001); other values pass."""
    return round(value, DECIMAL_PLACES) if isinstance(value, float) else value
