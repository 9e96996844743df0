"""What the trends and study pages show of the change points: the home page's announcement of new changes in
official series, and the changes of the series a page draws (their templates load these tags; trends' and studies'
code never imports changes)."""

from django import template

from benchdash.changes.feeds import new_official_changes
from benchdash.changes.models import ChangePoint

register = template.Library()
ANNOUNCED = 5


@register.inclusion_tag("changes/_announcement.html")
def new_changes_announcement() -> dict:
    changes = new_official_changes()
    return {"changes": list(changes[:ANNOUNCED]), "count": changes.count()}


@register.inclusion_tag("changes/_series_changes.html")
def trend_changes(scenario_slug: str) -> dict:
    """The change points of a scenario's official index, under its chart on the home page."""
    return {"changes": _changes_of(f"trend:{scenario_slug}:")}


@register.inclusion_tag("changes/_series_changes.html")
def study_changes(study_id: int, builds: int) -> dict:
    """The change points of a study's series (its versions per scenario and client level), on its page, and, for
    a study of two builds or more, the link to its TPS per version and client level."""
    return {"changes": _changes_of(f"study:{study_id}:"), "minors_of": study_id if builds >= 2 else None}


def _changes_of(key_prefix: str) -> list[ChangePoint]:
    changes = ChangePoint.objects.filter(series_key__startswith=key_prefix).select_related("acknowledgement")
    return list(changes.order_by("series_key", "index"))
