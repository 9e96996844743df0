"""How a report writes its figures: one rule for the PDF, the slides and the report page."""

from __future__ import annotations


def figure_text(value: float | None) -> str:
    """'34,000' for 34000.0, '412.9' for 412.9373, '—' for no figure: thousands separated, one decimal at most
    (run-to-run noise is percent-level, so more places would claim a precision no figure has)."""
    if value is None:
        return "—"
    return f"{value:,.1f}".removesuffix(".0")
