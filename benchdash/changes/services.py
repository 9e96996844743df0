"""Acknowledging a change."""

from __future__ import annotations

from typing import Any

from benchdash.changes.models import Acknowledgement, ChangePoint


def change_acknowledge(*, change: ChangePoint, data: dict[str, Any], by: Any) -> Acknowledgement:
    """Mark the change as known or noise (a second word replaces the first): it stays listed, no longer new."""
    acknowledgement, _created = Acknowledgement.objects.update_or_create(
        change=change, defaults={"kind": data["kind"], "note": data["note"], "link": data["link"], "by": by}
    )
    return acknowledgement
