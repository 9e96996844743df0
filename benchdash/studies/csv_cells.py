"""The one rule for every CSV cell, headers included: no text cell can run as a spreadsheet formula (CSV injection).

Python-written cells go through inert(); the cells PostgreSQL writes (csv_copy.InertText) test the same triggers.
"""

from typing import Any

# A spreadsheet runs a cell starting with one of these as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def inert(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading apostrophe; other values pass."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value
