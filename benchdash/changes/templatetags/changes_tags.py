"""The home page's announcement of new changes in official series (the trends page loads it; trends' code never
imports changes)."""

from django import template

from benchdash.changes.feeds import new_official_changes

register = template.Library()
ANNOUNCED = 5


@register.inclusion_tag("changes/_announcement.html")
def new_changes_announcement() -> dict:
    changes = new_official_changes()
    return {"changes": list(changes[:ANNOUNCED]), "count": changes.count()}
